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
    private let peers: [PeerClient]

    private init(
        auth: RunningService, store: RunningService, dispatch: RunningService, scheme: String, host: String,
        peers: [PeerClient]
    ) {
        self.auth = auth
        self.store = store
        self.dispatch = dispatch
        self.scheme = scheme
        self.host = host
        self.peers = peers
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
        let bindHost = environment["SECUREPUSH_HOST"].flatMap { $0.isEmpty ? nil : $0 } ?? "127.0.0.1"
        // Peers call each other on loopback when bound to every interface.
        let peerHost = (bindHost == "0.0.0.0" || bindHost == "::") ? "127.0.0.1" : bindHost
        let tls = environment["SECUREPUSH_TLS_CERT_FILE"].map { !$0.isEmpty } ?? false
        let scheme = tls ? "https" : "http"
        let peerHostLiteral = peerHost.contains(":") ? "[\(peerHost)]" : peerHost
        let caFile = ServiceEnvironment(environment).peerCAFile
        // Before any database is opened: a taken port must fail the start with nothing written.
        try ListeningPort.ensureFree(try ListeningPort.configured(in: environment), host: bindHost)

        var peers: [PeerClient] = []
        var started: [RunningService] = []
        do {
            let auth = try await RunningService.start(name: "auth", logger: logger) { onRunning in
                let configuration = try AuthConfiguration(environment: ServiceEnvironment(environment))
                return try await buildAuthApplication(
                    configuration: configuration, logger: child(logger, "auth"), tracer: tracer,
                    onServerRunning: onRunning)
            }
            started.append(auth)
            environment["SECUREPUSH_AUTH_URL"] = "\(scheme)://\(peerHostLiteral):\(auth.port)"

            let storeAuth = try PeerClient(
                url: environment["SECUREPUSH_AUTH_URL"]!, peerName: "auth", caFile: caFile, logger: logger,
                tracer: tracer)
            peers.append(storeAuth)
            let store = try await RunningService.start(name: "notification-store", logger: logger) { onRunning in
                let configuration = try StoreConfiguration(environment: ServiceEnvironment(environment))
                return try await buildStoreApplication(
                    configuration: configuration, auth: storeAuth.rpc, logger: child(logger, "notification-store"),
                    tracer: tracer, onServerRunning: onRunning)
            }
            started.append(store)
            environment["SECUREPUSH_STORE_URL"] = "\(scheme)://\(peerHostLiteral):\(store.port)"

            let dispatchAuth = try PeerClient(
                url: environment["SECUREPUSH_AUTH_URL"]!, peerName: "auth", caFile: caFile, logger: logger,
                tracer: tracer)
            let dispatchStore = try PeerClient(
                url: environment["SECUREPUSH_STORE_URL"]!, peerName: "notification-store", caFile: caFile,
                logger: logger, tracer: tracer)
            peers += [dispatchAuth, dispatchStore]
            let dispatch = try await RunningService.start(name: "push-dispatch", logger: logger) { onRunning in
                let serviceEnvironment = ServiceEnvironment(environment)
                let configuration = try DispatchConfiguration(environment: serviceEnvironment)
                let providers = try await PushProviders.remoteProviders(
                    environment: serviceEnvironment, logger: child(logger, "push-dispatch"))
                return try await buildDispatchApplication(
                    configuration: configuration, auth: dispatchAuth.rpc, store: dispatchStore.rpc,
                    providers: providers, logger: child(logger, "push-dispatch"), tracer: tracer,
                    onServerRunning: onRunning)
            }
            return LocalStack(
                auth: auth, store: store, dispatch: dispatch, scheme: scheme, host: peerHost, peers: peers)
        } catch {
            for service in started.reversed() { await service.stop() }
            for peer in peers { await peer.shutdown() }
            throw error
        }
    }

    /// Stops push-dispatch, then notification-store, then auth, and closes the peer connections.
    public func stop() async {
        await dispatch.stop()
        await store.stop()
        await auth.stop()
        for peer in peers { await peer.shutdown() }
    }
}

private func child(_ logger: Logger, _ service: String) -> Logger {
    var logger = logger
    logger[metadataKey: "service"] = "\(service)"
    return logger
}
