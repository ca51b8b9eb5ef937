import Foundation
import PrivateFiles

/// A file of AES-256 keys (the store's `SECUREPUSH_STORE_KEY_FILE`, push-dispatch's `SECUREPUSH_APPS_KEY_FILE`): one
/// key per line, `<key id> <base64 of 32 bytes>`, blank lines and lines starting with `#` ignored. The last key
/// encrypts; the others still decrypt.
///
/// Errors name the file and the line and say what is wrong, never echoing key material.
public struct EncryptionKeyFile: Sendable {
    /// What a key file is for: the words its errors and its header use.
    public struct Purpose: Sendable {
        /// What the file is called in errors, e.g. `store key file`.
        public let name: String
        /// The variable that names the file, e.g. `SECUREPUSH_STORE_KEY_FILE`.
        public let variable: String
        /// What the keys encrypt, for the file's header, e.g. `new payloads`.
        public let encrypts: String
        /// The command that adds a key, e.g. `securepush store-keys rotate`.
        public let rotateCommand: String
        /// Other ways to create the file, said after the command when it cannot be read (may be empty).
        public let otherCreation: String
        /// The variable naming the PKCS#11 key that wraps the file's keys, e.g. `SECUREPUSH_STORE_KEY_WRAPPING_KEY`.
        public var wrappingVariable: String { variable.replacingOccurrences(of: "_FILE", with: "_WRAPPING_KEY") }

        public init(name: String, variable: String, encrypts: String, rotateCommand: String, otherCreation: String = "")
        {
            self.name = name
            self.variable = variable
            self.encrypts = encrypts
            self.rotateCommand = rotateCommand
            self.otherCreation = otherCreation
        }
    }

    /// Largest file read: far more than any real key file, small enough never to hurt.
    static let maxBytes = 1 << 20

    /// Where the file is.
    public let path: String
    /// What the file is for.
    public let purpose: Purpose
    /// The module key the file's keys are wrapped by (``EncryptionKeyWrapping``); `nil`: keys in clear.
    public let wrapping: EncryptionKeyWrapping?

    public init(path: String, purpose: Purpose, wrapping: EncryptionKeyWrapping? = nil) {
        self.path = path
        self.purpose = purpose
        self.wrapping = wrapping
    }

    /// The keys in the file; throws `ConfigurationError` when it cannot be read or is malformed.
    public func load() throws(ConfigurationError) -> EncryptionKeyRing {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw ConfigurationError(
                "\(name) cannot be read: \(Self.reason(error)) (create it with `\(purpose.rotateCommand)`"
                    + (purpose.otherCreation.isEmpty ? "" : ", or \(purpose.otherCreation)") + ")")
        }
        guard data.count <= Self.maxBytes else { throw ConfigurationError("\(name) is larger than 1 MiB") }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ConfigurationError("\(name) is not UTF-8 text")
        }
        let ring = try parse(text)
        if wrapping != nil, Self.hasKeyInClear(text) { try wrapInPlace(text, ring: ring) }
        return ring
    }

    /// Whether a line of `text` holds a key in clear.
    private static func hasKeyInClear(_ text: String) -> Bool {
        text.split(separator: "\n").contains { line in
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            return fields.count == 2 && !line.hasPrefix("#") && !fields[1].hasPrefix(EncryptionKeyWrapping.prefix)
        }
    }

    /// The migration when a module is turned on: every key in clear is replaced by its wrapped value, in one rename,
    /// comments and order kept. A file that cannot be replaced (a read-only mount) refuses the start rather than
    /// leave keys in clear beside a module that should hold them.
    private func wrapInPlace(_ text: String, ring: EncryptionKeyRing) throws(ConfigurationError) {
        guard let wrapping else { return }
        var lines: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard !line.hasPrefix("#"), fields.count == 2, !fields[1].hasPrefix(EncryptionKeyWrapping.prefix),
                let key = ring.key(id: String(fields[0]))
            else {
                lines.append(String(line))
                continue
            }
            let wrapped = try wrapping.wrap(key)
            // Opened again before the key in clear is given up: a module that wraps what it cannot unwrap (or
            // changed the nonce unseen) must not cost the only copy of a key.
            let opened = try wrapping.unwrap(id: key.id, value: wrapped.dropFirst(EncryptionKeyWrapping.prefix.count))
            guard opened == key.key.withUnsafeBytes({ Data($0) }) else {
                throw ConfigurationError(
                    "\(name): the key '\(key.id)' wrapped by \(wrapping.variable) does not unwrap to itself; the file "
                        + "was left as it is")
            }
            lines.append("\(key.id) \(wrapped)")
        }
        // Another process (a `store-keys rotate`) may have added a key meanwhile: then the file is left for the next
        // start, which wraps it with that key too, rather than the key lost.
        guard (try? String(contentsOfFile: path, encoding: .utf8)) == text else { return }
        do throws(PrivateFileError) {
            try PrivateFile.write(Data(lines.joined(separator: "\n").utf8), to: path)
        } catch {
            throw ConfigurationError(
                "\(name) holds keys in clear and \(wrapping.variable) is set, but it cannot be rewritten with them "
                    + "wrapped: \(error.reason)")
        }
    }

    /// The keys in `text`, the file's contents.
    public func parse(_ text: String) throws(ConfigurationError) -> EncryptionKeyRing {
        var keys: [EncryptionKey] = []
        var lines: [String: Int] = [:]
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            let line = rawLine.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count == 2 else {
                throw error(line: number, "expected `<key id> <base64 key>`, found \(fields.count) fields")
            }
            let id = String(fields[0])
            guard EncryptionKey.isValidID(id) else {
                throw error(
                    line: number,
                    "the key id must be \(EncryptionKey.idLengths.lowerBound) to \(EncryptionKey.idLengths.upperBound) "
                        + "characters of A-Z, a-z, 0-9, '.', '_' or '-'")
            }
            if let first = lines[id] { throw error(line: number, "key id '\(id)' is already used on line \(first)") }
            let bytes: Data
            if fields[1].hasPrefix(EncryptionKeyWrapping.prefix) {
                guard let wrapping else {
                    throw error(
                        line: number,
                        "key '\(id)' is wrapped by a key in a PKCS#11 module: set \(purpose.wrappingVariable)")
                }
                do throws(ConfigurationError) {
                    bytes = try wrapping.unwrap(id: id, value: fields[1].dropFirst(EncryptionKeyWrapping.prefix.count))
                } catch {
                    throw self.error(line: number, error.description)
                }
            } else {
                guard let decoded = Data(base64Encoded: Self.standardBase64(fields[1])) else {
                    throw error(line: number, "key '\(id)' is not base64")
                }
                bytes = decoded
            }
            guard let key = EncryptionKey(id: id, bytes: bytes) else {
                throw error(
                    line: number,
                    "key '\(id)' is \(bytes.count) bytes; AES-256 needs exactly \(EncryptionKey.byteCount)")
            }
            lines[id] = number
            keys.append(key)
        }
        guard let ring = EncryptionKeyRing(keys) else {
            throw ConfigurationError(
                "\(name) holds no key: add a line `<key id> <base64 of 32 random bytes>`, e.g. with "
                    + "`\(purpose.rotateCommand)`")
        }
        return ring
    }

    /// Writes a new file holding `key` (directory created 0700, file 0600); returns `false`, writing nothing, when
    /// the file already exists (another process created it first: of two creating it at once, exactly one wins).
    public func create(with key: EncryptionKey) throws -> Bool {
        let line = try line(for: key)
        do throws(PrivateFileError) {
            return try PrivateFile.write(Data((header + line + "\n").utf8), to: path, existing: .keep)
        } catch {
            // Its directory, or the file itself.
            let what = error.path == path ? "written" : "created"
            throw ConfigurationError("\(name) cannot be \(what): \(error.reason)")
        }
    }

    /// Adds `key` as the last line, so it encrypts from now on; the file is replaced in one rename (readers see
    /// the old file or the new one, never half of one) and keeps its comments and older keys.
    public func append(_ key: EncryptionKey) throws {
        let existing: String
        do {
            existing = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ConfigurationError("\(name) cannot be read: \(Self.reason(error))")
        }
        let separator = existing.isEmpty || existing.hasSuffix("\n") ? "" : "\n"
        let line = try line(for: key)
        do throws(PrivateFileError) {
            try PrivateFile.write(Data((existing + separator + line + "\n").utf8), to: path)
        } catch {
            throw ConfigurationError("\(name) cannot be replaced: \(error.reason)")
        }
    }

    /// The file's keys, generating a file with one new key first when there is none (development start).
    /// - Returns: the keys, and whether this call created the file.
    public func loadOrCreate(now: Date) throws -> (ring: EncryptionKeyRing, created: Bool) {
        let created =
            FileManager.default.fileExists(atPath: path) ? false : try create(with: EncryptionKey.generate(now: now))
        return (try load(), created)
    }

    /// The line for `key`: wrapped when the file's keys are.
    private func line(for key: EncryptionKey) throws(ConfigurationError) -> String {
        guard let wrapping else { return key.fileLine }
        return "\(key.id) \(try wrapping.wrap(key))"
    }

    /// The file's permission bits, when it exists.
    public var permissions: Int? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue
    }

    /// The first lines of a file this type writes.
    var header: String {
        """
        # SecurePush \(purpose.name) (\(purpose.variable)): `<key id> <base64 of 32 bytes>` per line.
        # The last key encrypts \(purpose.encrypts); every key listed still decrypts. Keep this file secret (mode 0600).

        """
    }

    private var name: String { "\(purpose.name) '\(path)' (\(purpose.variable))" }

    private func error(line: Int, _ what: String) -> ConfigurationError {
        ConfigurationError("\(name) line \(line): \(what)")
    }

    /// Accepts base64url and missing padding as well as standard base64.
    private static func standardBase64(_ text: Substring) -> String {
        var text = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        if text.count % 4 != 0 { text += String(repeating: "=", count: 4 - text.count % 4) }
        return text
    }

    private static func reason(_ error: any Error) -> String {
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain,
            let code = POSIXErrorCode(rawValue: Int32(underlying.code))
        {
            return String(cString: strerror(code.rawValue))
        }
        if nsError.domain == NSCocoaErrorDomain, nsError.code == NSFileReadNoSuchFileError { return "no such file" }
        return nsError.localizedDescription
    }
}
