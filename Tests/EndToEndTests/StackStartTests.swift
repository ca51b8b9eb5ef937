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

/// A TCP socket listening on a free loopback port, as another program holding the port would.
private final class ListeningSocket {
    let fd: Int32
    let port: Int

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.fd = fd
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ready = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && listen(fd, 1) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard fd >= 0, ready else { throw ShellCommandError("cannot listen on a loopback port") }
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() { _ = Glibc.close(fd) }
}
