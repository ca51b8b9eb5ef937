import Foundation
import HTTP2Client
import NIOCore
import TestSupport
import Testing

@Suite("HTTP2Client over TLS")
struct HTTP2ClientTLSTests {
    @Test(
        "the server certificate is verified against the host name, sent as SNI",
        arguments: ["localhost", "127.0.0.1"]
    )
    func hostVerification(host: String) async throws {
        try await withTestServer(.tls, router: makeTestRouter()) { server in
            let client = try server.makeClient(host: host)
            let response = try await client.execute(HTTP2Request(path: "/echo"))
            await client.shutdown()
            #expect(response.status == 200)
            #expect(response.header("x-echo-authority") == "\(host):\(server.port)")
        }
    }

    @Test("a server certificate from an untrusted CA is refused with tlsFailure")
    func untrustedCertificate() async throws {
        let unrelatedCA = try TestCertificates.makeUnrelatedCA()
        defer { try? FileManager.default.removeItem(at: URL(fileURLWithPath: unrelatedCA).deletingLastPathComponent()) }
        try await withTestServer(.tls, router: makeTestRouter()) { server in
            let client = try server.makeClient(configuration: .init(trustRootsPEMFile: unrelatedCA))
            let error = await #expect(throws: HTTP2ClientError.self) {
                _ = try await client.execute(HTTP2Request(path: "/echo"))
            }
            await client.shutdown()
            #expect(error == .tlsFailure)
        }
    }

    @Test("a TLS server that does not select h2 through ALPN is refused with tlsFailure")
    func alpnWithoutH2() async throws {
        try await withTestServer(.http1OverTLS, router: makeTestRouter()) { server in
            let client = try server.makeClient()
            let error = await #expect(throws: HTTP2ClientError.self) {
                _ = try await client.execute(HTTP2Request(path: "/echo"))
            }
            await client.shutdown()
            #expect(error == .tlsFailure)
            #expect(error?.description.contains("h2") == true)
        }
    }

    @Test("a trust roots file that cannot be read is reported when the client is made")
    func missingTrustRoots() {
        #expect(throws: HTTP2ClientError.tlsFailure) {
            _ = try HTTP2Client(
                baseURL: "https://localhost:1",
                configuration: .init(trustRootsPEMFile: "/nonexistent/ca.pem"),
                logger: .quiet
            )
        }
    }
}
