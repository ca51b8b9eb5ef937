import AuthService
import DispatchService
import Foundation
import Logging
import ServiceCore
import StoreService
import Tracing

/// All three services in one process, configured by the same `SECUREPUSH_*` variables as the standalone executables.
///
/// `securepush up` runs it on the default ports over embedded SQLite; tests run it on ephemeral ports.
/// Services start in dependency order (auth, notification-store, push-dispatch) and stop in reverse.
public final class LocalStack: Sendable {
    /// auth.
    public let auth: RunningService
    /// notification-store.
    public let store: RunningService
    /// push-dispatch.
    public let dispatch: RunningService
    /// `http` or `https`.
    public let scheme: String
    /// The host the services are reached on.
    public let host: String

    private init(auth: RunningService, store: RunningService, dispatch: RunningService, scheme: String, host: String) {
        self.auth = auth
        self.store = store
        self.dispatch = dispatch
        self.scheme = scheme
        self.host = host
    }

    /// auth's base URL.
    public var authURL: String { url(auth.port) }
    /// notification-store's base URL.
    public var storeURL: String { url(store.port) }
    /// push-dispatch's base URL.
    public var dispatchURL: String { url(dispatch.port) }

    private func url(_ port: Int) -> String {
        let literal = host.contains(":") ? "[\(host)]" : host
        return "\(scheme)://\(literal):\(port)"
    }

    /// Starts the three services.
    /// - Parameters:
    ///   - environment: the `SECUREPUSH_*` variables (ports, data directory, TLS files, clients…). Peer URLs are set
    ///     by the stack itself from the ports the services actually bound.
    ///   - logger: the parent logger; each service gets a child labelled with its name.
    ///   - tracer: traces all three services and the calls between them (`nil`, the default: tracing off).
    public static func start(
        environment: [String: String], logger: Logger, tracer: (any Tracer)? = nil
    ) async throws -> LocalStack {
        var environment = environment
        // One process on embedded SQLite: a PostgreSQL URL is for the separate services (auth-service, …).
        environment["SECUREPUSH_DATABASE_URL"] = nil
        // One metrics port cannot serve three services: each serves `GET /metrics` on its own port.
        environment["SECUREPUSH_METRICS_PORT"] = nil
        let bindHost = ServiceEnvironment(environment).string(SettingCatalog.host)!
        // Peers call each other on loopback when bound to every interface.
        let peerHost = (bindHost == "0.0.0.0" || bindHost == "::") ? "127.0.0.1" : bindHost
        let tls = environment["SECUREPUSH_TLS_CERT_FILE"].map { !$0.isEmpty } ?? false
        let scheme = tls ? "https" : "http"
        let peerHostLiteral = peerHost.contains(":") ? "[\(peerHost)]" : peerHost
        // Before any database is opened: a taken port must fail the start with nothing written.
        try ListeningPort.ensureFree(try ListeningPort.configured(in: environment), host: bindHost)

        var started: [RunningService] = []
        // auth erases users in the store and push-dispatch, which start after it: told their URLs once they listen.
        let peers = PeerAddresses()
        do {
            // Each service as its executable plans it; only its peers' URLs come from the ports bound before it.
            let auth = try await RunningService.start(name: "auth", logger: logger) { onRunning in
                try await AuthPlan.make(
                    environment: ServiceEnvironment(environment), peers: peers, logger: child(logger, "auth"),
                    tracer: tracer, onServerRunning: onRunning)
            }
            started.append(auth)
            environment["SECUREPUSH_AUTH_URL"] = "\(scheme)://\(peerHostLiteral):\(auth.port)"

            let store = try await RunningService.start(name: "notification-store", logger: logger) { onRunning in
                try await StorePlan.make(
                    environment: ServiceEnvironment(environment), logger: child(logger, "notification-store"),
                    tracer: tracer, onServerRunning: onRunning)
            }
            started.append(store)
            environment["SECUREPUSH_STORE_URL"] = "\(scheme)://\(peerHostLiteral):\(store.port)"
            peers.set("notification-store", environment["SECUREPUSH_STORE_URL"]!)

            let dispatch = try await RunningService.start(name: "push-dispatch", logger: logger) { onRunning in
                try await DispatchPlan.make(
                    environment: ServiceEnvironment(environment), logger: child(logger, "push-dispatch"),
                    tracer: tracer, onServerRunning: onRunning)
            }
            peers.set("push-dispatch", "\(scheme)://\(peerHostLiteral):\(dispatch.port)")
            return LocalStack(auth: auth, store: store, dispatch: dispatch, scheme: scheme, host: peerHost)
        } catch {
            for service in started.reversed() { await service.stop() }
            throw error
        }
    }

    /// Stops push-dispatch, then notification-store, then auth (each closes its peer connections as it stops).
    public func stop() async {
        await dispatch.stop()
        await store.stop()
        await auth.stop()
    }
}

private func child(_ logger: Logger, _ service: String) -> Logger {
    var logger = logger
    logger[metadataKey: "service"] = "\(service)"
    return logger
}
