import Crypto
import Foundation
import Hummingbird
import HummingbirdHTTP2
import Logging
import NIOCore
import ServiceLifecycle
import TestSupport

extension Logger {
    /// Drops everything, to keep test output readable.
    static let quiet = Logger(label: "webpush-test", factory: { _ in SwiftLogNoOpLogHandler() })
}

enum MockPushServerError: Error {
    case didNotStart
}

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

    let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
    let app = Application(
        router: router,
        server: try .http2Upgrade(tlsConfiguration: certificates.makeServerTLSConfiguration()),
        configuration: .init(address: .hostname("127.0.0.1", port: 0)),
        onServerRunning: { channel in portContinuation.yield(channel.localAddress?.port ?? 0) },
        logger: .quiet
    )
    let serviceGroup = ServiceGroup(configuration: .init(services: [app], logger: .quiet))

    return try await withThrowingTaskGroup(of: Void.self) { tasks in
        tasks.addTask {
            defer { portContinuation.finish() }
            try await serviceGroup.run()
        }
        var portIterator = ports.makeAsyncIterator()
        guard let port = await portIterator.next() else {
            try await tasks.waitForAll()
            throw MockPushServerError.didNotStart
        }
        mock.origin = "https://127.0.0.1:\(port)"
        let result: Result<T, any Error>
        do {
            result = .success(try await body(mock))
        } catch {
            result = .failure(error)
        }
        await serviceGroup.triggerGracefulShutdown()
        try await tasks.waitForAll()
        return try result.get()
    }
}
