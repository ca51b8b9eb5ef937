import DevelopmentPKI
import Foundation
import Hummingbird
import Logging
import NIOSSL
import SecurePushClient
import SharedModels
import TestSupport
import Testing

@Suite("Issued certificates over real TLS, checked by the health probe")
struct IssuedCertificateTLSTests {
    let directory = TemporaryDirectory.processRootURL.appendingPathComponent("pki-tls-\(UUID().uuidString)").path
    let logger = Logger(label: "pki-tests", factory: { _ in SwiftLogNoOpLogHandler() })

    /// A server presenting the `auth` certificate from `pki`, answering GET /health with `health` and `status`.
    func withAuthServer<T>(
        _ pki: DevelopmentCertificates, health: ServiceHealth, status: HTTPResponse.Status = .ok,
        _ body: (Int) async throws -> T
    ) async throws -> T {
        let tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(pki.certificatePath("auth")).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: pki.keyPath("auth"), format: .pem)))
        let router = Router()
        let data = try RPCCodec.makeEncoder().encode(health)
        router.get("/health") { _, _ in
            Response(
                status: status, headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(bytes: data)))
        }
        return try await withMockServer(tlsConfiguration: tls, router: router, body)
    }

    @Test("a client trusting ca.pem reaches the service by localhost and by 127.0.0.1")
    func trustedByName() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let pki = DevelopmentCertificates(certificatesDirectory: directory, caKeyDirectory: directory)
        _ = try pki.ensure([.init(name: "auth", hosts: [try SubjectHost("auth")] + SubjectHost.loopback)])
        let expected = ServiceHealth(status: "ok", service: "auth", checks: ["database": "ok"])
        try await withAuthServer(pki, health: expected) { port in
            for host in ["localhost", "127.0.0.1"] {
                let health = try await ServiceHealthCheck.check(
                    baseURL: "https://\(host):\(port)", caFile: pki.caCertificatePath, timeout: .seconds(30),
                    logger: logger)
                #expect(health == expected)
                #expect(health.isReady)
            }
        }
    }

    @Test("a name the certificate does not cover, or an untrusted CA, fails the handshake")
    func refused() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let pki = DevelopmentCertificates(certificatesDirectory: directory, caKeyDirectory: directory)
        _ = try pki.ensure([.init(name: "auth", hosts: [try SubjectHost("auth")])])
        let unrelated = try TestCertificates.makeUnrelatedCA()
        try await withAuthServer(pki, health: .init(status: "ok", service: "auth", checks: [:])) { port in
            await #expect(throws: (any Error).self) {
                _ = try await ServiceHealthCheck.check(
                    baseURL: "https://localhost:\(port)", caFile: pki.caCertificatePath, timeout: .seconds(30),
                    logger: logger)
            }
            await #expect(throws: (any Error).self) {
                _ = try await ServiceHealthCheck.check(
                    baseURL: "https://localhost:\(port)", caFile: unrelated, timeout: .seconds(30), logger: logger)
            }
        }
    }

    @Test("a 503 with a health body is a not-ready answer, not an error")
    func notReady() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let pki = DevelopmentCertificates(certificatesDirectory: directory, caKeyDirectory: directory)
        _ = try pki.ensure([.init(name: "auth", hosts: SubjectHost.loopback)])
        let down = ServiceHealth(status: "unavailable", service: "auth", checks: ["database": "locked"])
        try await withAuthServer(pki, health: down, status: .serviceUnavailable) { port in
            let health = try await ServiceHealthCheck.check(
                baseURL: "https://localhost:\(port)", caFile: pki.caCertificatePath, timeout: .seconds(30),
                logger: logger)
            #expect(!health.isReady)
            #expect(health.checks["database"] == "locked")
        }
    }
}
