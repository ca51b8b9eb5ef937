import Crypto
import Foundation
import Hummingbird
import Logging
import TestSupport

/// Runs a `MockPushService` over HTTPS (HTTP/2 or HTTP/1.1 by ALPN, test CA) on 127.0.0.1 for the duration of
/// `body`, then shuts it down and waits for it.
func withMockPushService<T>(
    applicationServerKey: P256.Signing.PublicKey,
    clock: TestClock,
    _ body: (MockPushService) async throws -> T
) async throws -> T {
    let certificates = try TestCertificates.make()
    defer { certificates.remove() }
    let mock = MockPushService(
        applicationServerKey: applicationServerKey, caFile: certificates.caCertificatePath, now: { clock.now })

    let router = Router()
    router.post("/push/:name") { request, context -> Response in
        let name = context.parameters.get("name") ?? ""
        let buffer = try await request.body.collect(upTo: 1 << 20)
        return await mock.handle(name: name, headers: request.headers, body: Data(buffer.readableBytesView))
    }
    return try await withMockServer(certificates: certificates, router: router) { port in
        mock.origin = "https://127.0.0.1:\(port)"
        return try await body(mock)
    }
}
