import ChildProcesses
import Foundation
import Logging
import ServiceCore
import SharedModels
import StoreService
import TestSupport
import Testing

/// `securepush store-keys rotate` on the store's SQLite database, as an operator runs it.
@Suite("securepush store-keys rotate")
struct StoreKeysCLITests {
    let directory = TemporaryDirectory.processRootURL.appendingPathComponent("store-keys-cli-\(UUID().uuidString)")
    let logger = Logger(label: "store-keys-cli", factory: { _ in SwiftLogNoOpLogHandler() })

    @Test(
        "rotate adds a key and re-encrypts plaintext and old-key rows; with the old key removed every payload still reads"
    )
    func rotates() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let environment = ServiceEnvironment(["SECUREPUSH_DATA_DIR": directory.path])
        let configuration = try StoreConfiguration(environment: environment)
        let keyPath = try #require(configuration.storeKeys.path)
        // A row from before encryption at rest, and one under the key generated at first start.
        let database = try ServiceDatabase.open(configuration, schema: StoreMigrations.schema, logger: logger)
        let legacy = try await database.whileRunning { database in
            let store = NotificationStore(
                repository: SQLNotificationRepository(database: database, sealer: IdentityPayloadSealer()),
                logger: logger)
            return try await store.put(recipientID: "ada", payload: "from before", ttlSeconds: nil).id
        }
        let current = try await StoreComponents.make(
            configuration: configuration, auth: Self.unusedAuth, logger: logger
        ).store.put(recipientID: "ada", payload: "under the first key", ttlSeconds: nil).id
        let firstKey = try EncryptionKeyFile(path: keyPath, purpose: .store).load().current.id

        let run = try await Self.securepush(["store-keys", "rotate", "--data-dir", directory.path])
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("re-encrypted 2 payloads"), "\(run.output)")
        let keys = try EncryptionKeyFile(path: keyPath, purpose: .store).load().keys
        #expect(keys.count == 2)
        #expect(keys.first?.id == firstKey)
        // The rotation is in the store's audit trail, in a signed chain of the command's own.
        let exported = try await Self.securepush([
            "audit", "export", "--data-dir", directory.path, "--since", "1h", "--service", "notification-store",
        ])
        let rotation = try #require(
            exported.output.split(separator: "\n").first { $0.contains(#""type":"store.keys.rotated""#) },
            "\(exported.output)")
        #expect(rotation.contains(#""keyId":"\#(keys[1].id)""#))
        #expect(rotation.contains(#""reencrypted":2"#))
        #expect(rotation.contains(#""by":"cli""#))
        let verified = try await Self.securepush([
            "audit", "verify", "--data-dir", directory.path, "--service", "notification-store",
        ])
        #expect(verified.status == 0, "\(verified.output)")

        // Drop the old key, as the operator does once every replica has restarted.
        let text = try String(contentsOfFile: keyPath, encoding: .utf8)
        try text.split(separator: "\n").filter { !$0.hasPrefix(firstKey) }.joined(separator: "\n")
            .write(toFile: keyPath, atomically: true, encoding: .utf8)
        let restarted = try StoreComponents.make(
            configuration: try StoreConfiguration(environment: environment), auth: Self.unusedAuth, logger: logger)
        #expect(try await restarted.store.get(id: legacy, recipientID: "ada").payload == "from before")
        #expect(try await restarted.store.get(id: current, recipientID: "ada").payload == "under the first key")
    }

    @Test("a malformed key file is refused in the CLI's error:/hint: form, naming the line, never the key")
    func refusesBadFile() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("keys").path
        let short = Data(repeating: 0x33, count: 24).base64EncodedString()
        try "k1 \(short)\n".write(toFile: path, atomically: true, encoding: .utf8)
        let run = try await Self.securepush([
            "store-keys", "rotate", "--data-dir", directory.path, "--key-file", path,
        ])
        #expect(run.status == 1)
        #expect(
            run.output.contains(
                "error: store key file '\(path)' (SECUREPUSH_STORE_KEY_FILE) line 1: key 'k1' is 24 bytes"))
        #expect(run.output.contains("hint: "))
        #expect(!run.output.contains(short))
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "k1 \(short)\n", "the file is left as it was")

        let missing = try await Self.securepush([
            "store-keys", "rotate", "--reencrypt-only", "--key-file", path + ".absent", "--data-dir", directory.path,
        ])
        #expect(missing.status == 1)
        #expect(missing.output.contains("error: there is no store key file at \(path).absent"))
    }

    /// An auth client the store never calls in these tests (only `auth.keys`, in the background, which is not run).
    static var unusedAuth: RPCClient {
        RPCClient(
            transport: InProcessTransport(
                dispatcher: { RPCDispatcher() }, context: { RPCRequestContext(bearerToken: $0, logger: .quiet) }),
            peerName: "auth")
    }

    /// Runs the built `securepush` with only `extra` SECUREPUSH_* variables; returns its exit status and output.
    static func securepush(_ arguments: [String], environment extra: [String: String] = [:]) async throws
        -> (status: Int32, output: String)
    {
        let process = Process()
        process.executableURL = ServiceProcess.buildDirectory.appendingPathComponent("securepush")
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("SECUREPUSH_") }
        environment.merge(extra) { _, new in new }
        process.environment = environment
        let output = TemporaryDirectory.processRootURL.appendingPathComponent("cli-\(UUID().uuidString).txt")
        defer { try? FileManager.default.removeItem(at: output) }
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let handle = try FileHandle(forWritingTo: output)
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try await process.runToExit()
        try handle.close()
        return (process.terminationStatus, try String(contentsOf: output, encoding: .utf8))
    }
}
