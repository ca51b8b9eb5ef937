import Foundation
import Logging
import ServiceCore
import StoreService
import TestSupport
import Testing

@Suite("store keys configuration")
struct StoreKeyConfigurationTests {
    let directory = TemporaryDirectory.processRootURL.appendingPathComponent("store-keys-\(UUID().uuidString)")

    @Test("unset in development: <data dir>/store-keys, generated on first start and read again after a restart")
    func generatedInDataDirectory() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let environment = ServiceEnvironment(["SECUREPUSH_DATA_DIR": directory.path])
        let configuration = try StoreConfiguration(environment: environment)
        let path = directory.appendingPathComponent("store-keys").path
        guard case .generatedFile(path) = configuration.storeKeys else {
            Issue.record("expected the generated key file, got \(configuration.storeKeys)")
            return
        }
        let signer = try await TestSigner()
        let put = try await StoreHarness(configuration: configuration, signer: signer).put(to: "ada", payload: "kept")
        #expect(try StoreKeyFileTests.mode(path) == 0o600)
        #expect(try StoreKeyFileTests.mode(directory.path) == 0o700)

        let restarted = try await StoreHarness(
            configuration: try StoreConfiguration(environment: environment), signer: signer)
        #expect(try await restarted.get(put.notificationId, as: "ada").payload == "kept")
    }

    @Test("in production an unset SECUREPUSH_STORE_KEY_FILE is refused with a hint, on SQLite and on PostgreSQL")
    func requiredInProduction() throws {
        for extra in [[:], ["SECUREPUSH_DATABASE_URL": "postgres://securepush@127.0.0.1/securepush"]] {
            let error = #expect(throws: ConfigurationError.self) {
                try StoreConfiguration(
                    environment: ServiceEnvironment(["SECUREPUSH_ENV": "production"].merging(extra) { $1 }))
            }
            #expect(error?.description.hasPrefix("SECUREPUSH_STORE_KEY_FILE must be set") == true)
            #expect(error?.description.contains("securepush store-keys rotate --key-file") == true)
        }
        let configured = try StoreConfiguration(
            environment: ServiceEnvironment([
                "SECUREPUSH_ENV": "production", "SECUREPUSH_STORE_KEY_FILE": "/etc/securepush/store-keys",
                "SECUREPUSH_AUDIT_KEY_FILE": "/etc/securepush/audit-signing-key.pem",
                "SECUREPUSH_AUDIT_CHECKPOINT_DIR": "/var/lib/securepush-audit",
                "SECUREPUSH_STORE_CLIENT_ID": "notification-store",
                "SECUREPUSH_STORE_CLIENT_SECRET": "3e8b1d6f0a9c4d2e8f7a1b5c9d3e6f2a-store",
            ]))
        #expect(configured.storeKeys.path == "/etc/securepush/store-keys")
    }

    @Test("a named key file that is missing or malformed stops the store from starting, naming the file and line")
    func badFileRefusesToStart() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("store-keys").path
        let environment = ServiceEnvironment(["SECUREPUSH_DATA_DIR": directory.path, "SECUREPUSH_STORE_KEY_FILE": path])

        let missing = await #expect(throws: ConfigurationError.self) {
            _ = try await StoreHarness(configuration: try StoreConfiguration(environment: environment))
        }
        #expect(missing?.description.contains("'\(path)'") == true)
        #expect(!FileManager.default.fileExists(atPath: path), "a named file is never generated")

        let secret = Data(repeating: 0x5A, count: 31).base64EncodedString()
        try "# keys\nk1 \(secret)\n".write(toFile: path, atomically: true, encoding: .utf8)
        let malformed = await #expect(throws: ConfigurationError.self) {
            _ = try await StoreHarness(configuration: try StoreConfiguration(environment: environment))
        }
        let message = try #require(malformed?.description)
        #expect(message.contains("'\(path)'") && message.contains("line 2") && message.contains("31 bytes"))
        #expect(!message.contains(secret))
    }

    @Test("store-service's plan refuses a key file it cannot read before it opens its database: nothing is written")
    func planRefusesBeforeDatabase() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("store-keys").path
        try "not a key file\n".write(toFile: path, atomically: true, encoding: .utf8)
        let environment = ServiceEnvironment(["SECUREPUSH_DATA_DIR": directory.path, "SECUREPUSH_STORE_KEY_FILE": path])
        let refused = await #expect(throws: ConfigurationError.self) {
            _ = try await StorePlan.make(environment: environment, logger: Logger(label: "test.store"), tracer: nil)
        }
        #expect(refused?.description.contains("'\(path)'") == true)
        let written = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(written == ["store-keys"], "no database file next to the key file")
    }

    @Test("a running store reads payloads re-encrypted under a key added to its file after it started")
    func runningStoreFollowsRotation() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = EncryptionKeyFile(path: directory.appendingPathComponent("store-keys").path, purpose: .store)
        _ = try file.loadOrCreate(now: Date())
        let harness = try await StoreHarness(configuration: StoreConfiguration(storeKeys: .file(file.path)))
        let put = try await harness.put(to: "ada", payload: "still readable")

        try file.append(EncryptionKey.generate(now: Date()))
        let rotated = AESGCMPayloadSealer(ring: try file.load())
        // The service's own database value: a second one over its writer would not share its write lock.
        #expect(
            try await PayloadReencryption(database: harness.components.database.sql, sealer: rotated).run().reencrypted
                == 1)

        #expect(try await harness.get(put.notificationId, as: "ada").payload == "still readable")
    }
}
