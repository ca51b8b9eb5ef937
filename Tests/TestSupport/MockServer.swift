import Hummingbird
import HummingbirdCore
import HummingbirdHTTP2
import Logging
import NIOSSL
import ServiceLifecycle

/// The mock server stopped before it listened.
public enum MockServerError: Error {
    case didNotStart
}

/// Runs an HTTPS server (TLS with ALPN h2 and http/1.1, certificate from `certificates`) on 127.0.0.1 with an
/// ephemeral port for the duration of `body`, which gets the port; then shuts it down and waits for it.
public func withMockServer<T>(
    certificates: TestCertificates,
    router: Router<BasicRequestContext>,
    _ body: (Int) async throws -> T
) async throws -> T {
    try await withMockServer(tlsConfiguration: certificates.makeServerTLSConfiguration(), router: router, body)
}

/// Runs an HTTPS server presenting `tlsConfiguration`'s certificate (ALPN h2 and http/1.1 are added) on 127.0.0.1
/// with an ephemeral port for the duration of `body`, which gets the port; then shuts it down and waits for it.
public func withMockServer<T>(
    tlsConfiguration: TLSConfiguration,
    router: Router<BasicRequestContext>,
    _ body: (Int) async throws -> T
) async throws -> T {
    try await withRunningServer(router: router, server: try .http2Upgrade(tlsConfiguration: tlsConfiguration)) {
        port, _ in try await body(port)
    }
}

/// Runs a Hummingbird application with `server` on 127.0.0.1 (`port` 0 picks a free one) in its own service group for
/// the duration of `body`, which gets the bound port and the group (to stop the server early); then shuts it down
/// gracefully and waits for it. Every mock and test server shares this lifecycle.
public func withRunningServer<T>(
    router: Router<BasicRequestContext>,
    server: HTTPServerBuilder,
    port: Int = 0,
    _ body: (Int, ServiceGroup) async throws -> T
) async throws -> T {
    let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
    let app = Application(
        router: router,
        server: server,
        configuration: .init(address: .hostname("127.0.0.1", port: port)),
        onServerRunning: { channel in portContinuation.yield(channel.localAddress?.port ?? 0) },
        logger: silentLogger
    )
    let serviceGroup = ServiceGroup(configuration: .init(services: [app], logger: silentLogger))
    return try await withThrowingTaskGroup(of: Void.self) { tasks in
        tasks.addTask {
            defer { portContinuation.finish() }
            try await serviceGroup.run()
        }
        var portIterator = ports.makeAsyncIterator()
        guard let boundPort = await portIterator.next() else {
            try await tasks.waitForAll()
            throw MockServerError.didNotStart
        }
        let result: Result<T, any Error>
        do {
            result = .success(try await body(boundPort, serviceGroup))
        } catch {
            result = .failure(error)
        }
        await serviceGroup.triggerGracefulShutdown()
        try await tasks.waitForAll()
        return try result.get()
    }
}

private let silentLogger = Logger(label: "mock-server", factory: { _ in SwiftLogNoOpLogHandler() })

/// A loopback port nothing listens on any more (a server was bound to it and stopped): requests to it are refused.
public func closedPort() async throws -> Int {
    let certificates = try TestCertificates.make()
    defer { certificates.remove() }
    return try await withMockServer(certificates: certificates, router: Router()) { $0 }
}
