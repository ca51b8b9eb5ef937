import Foundation
import SecurePushStack
import ServiceCore
import StoreService
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Starting the local stack")
struct StackStartTests {
    private static func freshDirectory() -> String {
        TemporaryDirectory.processRootURL.appendingPathComponent("securepush-start-\(UUID().uuidString)").path
    }

    @Test("a taken port fails the start before anything is written, naming the port, its service and its variable")
    func takenPortWritesNothing() async throws {
        let taken = try ListeningSocket()
        defer { taken.close() }
        let directory = Self.freshDirectory()
        var environment = TestStack.environment(
            mode: .cleartext, dataDirectory: directory, backendSecret: "backend-secret-for-tests", certificates: nil)
        environment["SECUREPUSH_STORE_PORT"] = "\(taken.port)"

        let error = await #expect(throws: PortInUseError.self) {
            _ = try await LocalStack.start(environment: environment, logger: TestStack.logger())
        }

        #expect(
            error?.port
                == ListeningPort(service: "notification-store", variable: "SECUREPUSH_STORE_PORT", port: taken.port))
        #expect(error?.description.contains("port \(taken.port) (notification-store, SECUREPUSH_STORE_PORT)") == true)
        #expect(!FileManager.default.fileExists(atPath: directory), "nothing may be written before the ports are free")
    }

    @Test("the data directory is created for its owner only (0700), with the store's generated key file (0600)")
    func dataDirectoryIsPrivate() async throws {
        let directory = Self.freshDirectory() + "/nested/.securepush"
        let environment = TestStack.environment(
            mode: .cleartext, dataDirectory: directory, backendSecret: "backend-secret-for-tests", certificates: nil)
        let stack = try await LocalStack.start(environment: environment, logger: TestStack.logger())
        await stack.stop()
        defer { try? FileManager.default.removeItem(atPath: (directory as NSString).deletingLastPathComponent) }
        let attributes = try FileManager.default.attributesOfItem(atPath: directory)
        #expect((attributes[.posixPermissions] as? Int) == 0o700)
        let keyFile = directory + "/store-keys"
        let keys = try FileManager.default.attributesOfItem(atPath: keyFile)
        #expect((keys[.posixPermissions] as? Int) == 0o600)
        #expect(try EncryptionKeyFile(path: keyFile, purpose: .store).load().keys.count == 1)
    }
}
