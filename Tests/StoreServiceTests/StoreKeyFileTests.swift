import DevelopmentPKI
import Foundation
import ServiceCore
import StoreService
import TestSupport
import Testing

@Suite("store key file (SECUREPUSH_STORE_KEY_FILE)")
struct StoreKeyFileTests {
    static let keyA = Data(repeating: 0xA1, count: 32).base64EncodedString()
    static let keyB = Data(repeating: 0xB2, count: 32).base64EncodedString()
    let file = EncryptionKeyFile(path: "/etc/securepush/store-keys", purpose: .store)

    @Test("keys are read in order, comments and blank lines skipped; the last one encrypts")
    func parsesKeys() throws {
        let ring = try file.parse(
            """
            # rotated 2026-11-24
              
            old-1 \(Self.keyA)
            \tnew.2\t\(Self.keyB.replacingOccurrences(of: "=", with: ""))
            """)
        #expect(ring.keys.map(\.id) == ["old-1", "new.2"])
        #expect(ring.current.id == "new.2")
        #expect(ring.key(id: "old-1") != nil)
        #expect(ring.key(id: "missing") == nil)
    }

    @Test(
        "a malformed file is refused naming the file, the line and what is wrong, never echoing key bytes",
        arguments: [
            ("k1 \(keyA)\nk2\n", "line 2: expected `<key id> <base64 key>`, found 1 fields"),
            ("\(keyA)\n", "line 1: expected `<key id> <base64 key>`, found 1 fields"),
            ("k1 \(keyA) extra\n", "line 1: expected `<key id> <base64 key>`, found 3 fields"),
            ("# c\nk/1 \(keyA)\n", "line 2: the key id must be 1 to 64 characters"),
            ("k1 not*base64!\n", "line 1: key 'k1' is not base64"),
            ("k1 \(Data(repeating: 7, count: 16).base64EncodedString())\n", "line 1: key 'k1' is 16 bytes"),
            ("k1 \(keyA)\nk1 \(keyB)\n", "line 2: key id 'k1' is already used on line 1"),
            ("# only a comment\n\n", "holds no key"),
        ])
    func refusals(_ contents: String, _ expected: String) throws {
        let error = #expect(throws: ConfigurationError.self) { try file.parse(contents) }
        let message = try #require(error?.description)
        #expect(message.contains("store key file '/etc/securepush/store-keys' (SECUREPUSH_STORE_KEY_FILE)"))
        #expect(message.contains(expected), "\(message)")
        for key in [Self.keyA, Self.keyB, "not*base64!", Data(repeating: 7, count: 16).base64EncodedString()] {
            #expect(!message.contains(key))
        }
    }

    @Test("a missing file is refused naming it and how to create one")
    func missingFile() throws {
        let path = TemporaryDirectory.processRootURL.appendingPathComponent("absent-\(UUID())").path
        let error = #expect(throws: ConfigurationError.self) {
            try EncryptionKeyFile(path: path, purpose: .store).load()
        }
        #expect(error?.description.contains("'\(path)'") == true)
        #expect(error?.description.contains("securepush store-keys rotate") == true)
    }

    @Test("a generated file is 0600 in a 0700 directory, kept on the next start, and appending keeps older keys")
    func generatesAndAppends() throws {
        let directory = TemporaryDirectory.processRootURL.appendingPathComponent("keys-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = EncryptionKeyFile(path: directory.appendingPathComponent("store-keys").path, purpose: .store)
        let now = Date(timeIntervalSince1970: 1_795_996_800)  // 2026-11-30
        let (first, created) = try file.loadOrCreate(now: now)
        #expect(created)
        #expect(first.current.id.hasPrefix("20261130-"))
        #expect(try Self.mode(file.path) == 0o600)
        #expect(try Self.mode(directory.path) == 0o700)
        let (again, createdAgain) = try file.loadOrCreate(now: now)
        #expect(!createdAgain)
        #expect(again.keys.map(\.id) == first.keys.map(\.id))

        let next = EncryptionKey.generate(now: now)
        try file.append(next)
        #expect(try file.load().keys.map(\.id) == [first.current.id, next.id])
        #expect(try Self.mode(file.path) == 0o600)
        #expect(try !file.create(with: EncryptionKey.generate(now: now)), "never replaces an existing file")
    }

    @Test("the file `securepush certs --secrets-dir` generates is a valid key file")
    func developmentSecretsFile() throws {
        let directory = TemporaryDirectory.processRootURL.appendingPathComponent("secrets-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let secrets = DevelopmentSecrets(directory: directory)
        _ = try secrets.ensure()
        let ring = try EncryptionKeyFile(path: secrets.path(.storeKeys), purpose: .store).load()
        #expect(ring.keys.count == 1)
    }

    static func mode(_ path: String) throws -> Int? {
        (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue
    }
}

@Suite("store key file, at the edges")
struct StoreKeyFileEdgeTests {
    let directory = TemporaryDirectory.processRootURL.appendingPathComponent("keys-edge-\(UUID().uuidString)")

    @Test("replicas generating the file at the same moment end up with one key file and the same key")
    func concurrentFirstStarts() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = EncryptionKeyFile(path: directory.appendingPathComponent("store-keys").path, purpose: .store)
        let ids = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<8 { group.addTask { try file.loadOrCreate(now: Date()).ring.current.id } }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(ids.count == 1)
        #expect(try file.load().keys.count == 1)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(leftovers == ["store-keys"], "no temporary file is left behind")
    }

    @Test("a file over 1 MiB is refused without being parsed")
    func oversized() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("store-keys").path
        try Data(repeating: UInt8(ascii: "#"), count: (1 << 20) + 1).write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: ConfigurationError.self) {
            try EncryptionKeyFile(path: path, purpose: .store).load()
        }
        #expect(error?.description.contains("larger than 1 MiB") == true)
    }

    @Test("a key file others can read starts the store with a warning naming the file and its mode")
    func readableByOthers() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = EncryptionKeyFile(path: directory.appendingPathComponent("store-keys").path, purpose: .store)
        _ = try file.loadOrCreate(now: Date())
        let log = RecordedLog()
        _ = try StoreKeySource.file(file.path).makeSealer(logger: log.logger())
        #expect(log.count("store.keys.readable_by_others") == 0)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
        _ = try StoreKeySource.file(file.path).makeSealer(logger: log.logger())
        let warning = try #require(log.all.first { $0.message == "store.keys.readable_by_others" })
        #expect(warning.level == .warning)
        #expect(warning.metadata["file.mode"] == "644")
    }
}
