import ChildProcesses
import Foundation
import PKCS11
import Synchronization

/// SoftHSM2 tokens for tests (Debian `softhsm2`, installed by `.ci/run`), each in a temporary directory of its own
/// with its own configuration (`SOFTHSM2_CONF`).
///
/// SoftHSM reads its configuration and lists its tokens once, at `C_Initialize`: a test process loads the module
/// once, with ``shared()``'s configuration, and its tests tell their keys apart by label (``uniqueLabel(_:)``).
/// A test that removes a token, or needs a start-up of its own, gives a child process an ``isolated()`` token.
public struct SoftHSM: Sendable {
    /// Debian's path of the module.
    public static let modulePath = "/usr/lib/softhsm/libsofthsm2.so"
    /// The token's label.
    public static let tokenLabel = "securepush"
    /// The user PIN.
    public static let pin = "1234-test"
    /// The label two more tokens of ``shared()`` both have (a URI naming it by label alone is ambiguous).
    public static let twinLabel = "twin"

    /// The directory holding the configuration, the token directory and the PIN file.
    public let directory: String
    /// The configuration file (`SOFTHSM2_CONF`).
    public var configurationFile: String { directory + "/softhsm2.conf" }
    /// The directory SoftHSM keeps the token in: removing it removes the token.
    public var tokenDirectory: String { directory + "/tokens" }
    /// A file holding ``pin`` (`SECUREPUSH_PKCS11_PIN_FILE`).
    public var pinFile: String { directory + "/pin" }

    /// The variables a process needs to use the token: `SOFTHSM2_CONF`, `SECUREPUSH_PKCS11_MODULE`,
    /// `SECUREPUSH_PKCS11_PIN_FILE`.
    public var environment: [String: String] {
        [
            "SOFTHSM2_CONF": configurationFile, "SECUREPUSH_PKCS11_MODULE": Self.modulePath,
            "SECUREPUSH_PKCS11_PIN_FILE": pinFile,
        ]
    }

    /// Deletes the directory: the configuration, the tokens and the PIN file. ``shared()``'s is removed when the
    /// test process exits.
    public func remove() { try? FileManager.default.removeItem(atPath: directory) }

    /// The URI of the object labelled `object` in the token.
    public func uri(_ object: String) -> String { "pkcs11:token=\(Self.tokenLabel);object=\(object)" }

    private static let made = Mutex<Result<SoftHSM, SoftHSMError>?>(nil)

    /// The test process's token: made on first use, and `SOFTHSM2_CONF` set for this process before anything loads
    /// the module.
    public static func shared() throws -> SoftHSM {
        try made.withLock { (token) throws -> SoftHSM in
            if let token { return try token.get() }
            let result: Result<SoftHSM, SoftHSMError>
            do {
                let made = try isolated(twins: true)
                setenv("SOFTHSM2_CONF", made.configurationFile, 1)
                // The module keeps it open to the end: removed at exit (a C function pointer captures nothing).
                atexit { (try? SoftHSM.shared())?.remove() }
                result = .success(made)
            } catch let error as SoftHSMError {
                result = .failure(error)
            }
            token = result
            return try result.get()
        }
    }

    /// ``shared()``'s token, opened in this process through the module and logged in.
    public static func sharedToken() throws -> (hsm: SoftHSM, token: PKCS11Token) {
        let hsm = try shared()
        return (hsm, try PKCS11Module.load(path: modulePath).token(label: tokenLabel, pin: pin))
    }

    /// A new token in a directory of its own, initialised with `softhsm2-util`; with `twins`, two more tokens
    /// labelled ``twinLabel``.
    public static func isolated(twins: Bool = false) throws -> SoftHSM {
        guard FileManager.default.fileExists(atPath: modulePath) else {
            throw SoftHSMError("\(modulePath) is missing: install Debian's softhsm2")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("softhsm-\(UUID().uuidString)")
            .path
        let token = SoftHSM(directory: directory)
        do {
            try token.initialise(twins: twins)
        } catch {
            token.remove()
            throw error
        }
        return token
    }

    /// Writes the configuration and the PIN file and initialises the tokens with `softhsm2-util`.
    private func initialise(twins: Bool) throws {
        try FileManager.default.createDirectory(atPath: tokenDirectory, withIntermediateDirectories: true)
        try "directories.tokendir = \(tokenDirectory)\nobjectstore.backend = file\nlog.level = ERROR\n"
            .write(toFile: configurationFile, atomically: true, encoding: .utf8)
        try "\(Self.pin)\n".write(toFile: pinFile, atomically: true, encoding: .utf8)
        for label in [Self.tokenLabel] + (twins ? [Self.twinLabel, Self.twinLabel] : []) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/softhsm2-util")
            process.arguments = [
                "--init-token", "--free", "--label", label, "--pin", Self.pin, "--so-pin", "5678-test",
            ]
            process.environment = ["SOFTHSM2_CONF": configurationFile]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                throw SoftHSMError("softhsm2-util --init-token exited with \(process.terminationStatus)")
            }
        }
    }

    /// The serial numbers of the tokens labelled `label` (`softhsm2-util --show-slots`), e.g. to name one of the
    /// ``twinLabel`` tokens in a URI. Waits for the tool without blocking a thread of the cooperative pool.
    public func serials(ofTokensLabelled label: String) async throws -> [String] {
        let outputPath = directory + "/show-slots-\(UUID().uuidString)"
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/softhsm2-util")
        process.arguments = ["--show-slots"]
        process.environment = ["SOFTHSM2_CONF": configurationFile]
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        process.standardError = FileHandle.nullDevice
        let status = try await process.runToExit(within: .seconds(60))
        guard status == 0 else { throw SoftHSMError("softhsm2-util --show-slots exited with \(status)") }
        let text = try String(contentsOfFile: outputPath, encoding: .utf8)
        // Each token's "Serial number:" line comes before its "Label:" line.
        var serial: String?
        var serials: [String] = []
        for line in text.split(separator: "\n") {
            let field = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard field.count == 2 else { continue }
            if field[0] == "Serial number" { serial = field[1] }
            if field[0] == "Label", field[1] == label, let serial { serials.append(serial) }
        }
        return serials
    }

    /// A label no other test uses: `prefix` and 8 random hex digits.
    public static func uniqueLabel(_ prefix: String) -> String {
        "\(prefix)-\(UUID().uuidString.prefix(8).lowercased())"
    }
}

/// SoftHSM2 is missing or its token could not be made.
public struct SoftHSMError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
