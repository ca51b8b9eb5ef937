import HTTP2Core
import JSONRPC
import Logging
import Metrics
import NIOSSL
import ServiceLifecycle
import Tracing

/// Builds the application every SecurePush service runs, on the HTTP/2 core (libnghttp2): `POST /rpc`,
/// `GET /health`, `GET /metrics`, and any routes of the service's own.
public enum RPCServerBuilder {
    /// Builds the application.
    /// - Parameters:
    ///   - serviceName: `auth`, `notification-store` or `push-dispatch`; names the health body.
    ///   - dispatcher: the service's JSON-RPC methods.
    ///   - configuration: address, TLS and limits.
    ///   - health: readiness checks, run on every `GET /health`; the service is ready when all say `"ok"`.
    ///   - services: background services (workers, purgers) the application runs and stops with itself.
    ///   - logger: the service's logger.
    ///   - metrics: where RPC metrics are recorded, and the registry `GET /metrics` serves (on the service port, or on
    ///     `configuration.metricsPort` when set).
    ///   - tracer: traces every call (one server span each, continuing the caller's `traceparent`); `nil` (tracing off)
    ///     costs nothing.
    ///   - routes: service-specific routes (e.g. push-dispatch's event stream), asked in order after the built-in ones.
    ///   - beforeShutdown: runs on graceful shutdown as the listener sends GOAWAY, to end what would otherwise hold
    ///     connections open until the shutdown timeout (e.g. event streams).
    ///   - onServerRunning: called with the bound port once listening.
    public static func buildApplication(
        serviceName: String,
        dispatcher: RPCDispatcher,
        configuration: RPCServerConfiguration,
        health: @escaping @Sendable () async -> [String: String],
        services: [any Service] = [],
        logger: Logger,
        metrics: ServiceMetrics = .disabled,
        tracer: (any Tracer)? = nil,
        routes: [RPCServerRoute] = [],
        moreCORSOrigins: (@Sendable (String) -> Bool)? = nil,
        beforeShutdown: @escaping @Sendable () async -> Void = {},
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) throws -> RPCCoreApplication {
        let observed = observe(dispatcher, serviceName: serviceName, metrics: metrics, tracer: tracer)
        var services = services
        var metricsEndpoint: MetricsEndpoint? = nil
        let load = ServerLoadMetrics(load: HTTP2ServerLoad(), factory: metrics.factory)
        if let registry = metrics.registry {
            let endpoint = MetricsEndpoint(metrics: metrics, registry: registry, load: load)
            if let port = configuration.metricsPort {
                services.append(
                    endpoint.listener(
                        host: configuration.host, port: port, shutdownTimeout: configuration.shutdownTimeout,
                        logger: logger))
            } else {
                metricsEndpoint = endpoint
            }
        }
        let addresses = ClientAddressResolver(
            trustedProxies: configuration.trustedProxies, header: configuration.forwardedHeader)
        var routing = RPCRequestRouter(
            serviceName: serviceName, dispatcher: observed.dispatcher, maxBodyBytes: configuration.maxBodyBytes,
            addresses: addresses, metrics: observed.metrics, tracing: observed.tracing, health: health,
            metricsEndpoint: metricsEndpoint, routes: routes, logger: logger)
        routing.loadMetrics = load
        routing.cors = configuration.cors
        routing.moreCORSOrigins = moreCORSOrigins
        routing.scheme = configuration.scheme
        let router = routing
        let admission = HTTP2ConnectionAdmission(
            maxConnections: configuration.maxConnections,
            maxConnectionsPerAddress: configuration.maxConnectionsPerAddress,
            // A trusted proxy's connections carry many clients: each is counted by its forwarded address instead.
            isExempt: { peer in
                guard !addresses.trustedProxies.isEmpty,
                    let address = peer.ipAddress.map(ClientAddressResolver.canonicalPeer)
                else { return false }
                return addresses.isTrusted(IPNetwork.canonicalAddress(address) ?? address)
            },
            onRefused: { load.connectionRefused($0) })
        let server = HTTP2CoreServer.Configuration(
            host: configuration.host, port: configuration.port,
            tls: try configuration.tls.map(makeTLSConfiguration), limits: configuration.limits, admission: admission,
            load: load.load,
            rejection: { status, message in RPCRequestRouter.errorResponse(status: status, .invalidRequest(message)) })
        return RPCCoreApplication(
            server: server, handler: { request, responder in router.handle(request, responder) }, services: services,
            shutdownTimeout: configuration.shutdownTimeout, beforeShutdown: beforeShutdown, logger: logger,
            onServerRunning: onServerRunning)
    }

    /// `dispatcher` with its calls recorded in `metrics` (unless they record nothing) and traced by `tracer`.
    static func observe(
        _ dispatcher: RPCDispatcher, serviceName: String, metrics: ServiceMetrics, tracer: (any Tracer)?
    ) -> (dispatcher: RPCDispatcher, metrics: RPCMetrics?, tracing: (any RPCServerTracing)?) {
        var dispatcher = dispatcher
        var recorder: RPCMetrics? = nil
        if metrics.registry != nil || !(metrics.factory is NOOPMetricsHandler) {
            recorder = RPCMetrics(service: serviceName, methods: dispatcher.methodNames, factory: metrics.factory)
            dispatcher.observer = recorder
        }
        let tracing = tracing(tracer)
        dispatcher.interceptor = tracing
        return (dispatcher, recorder, tracing)
    }

    /// Loads a PEM certificate chain and key into a server TLS configuration: TLS 1.2 or later (ALPN is set by the
    /// core: `h2`, then `http/1.1`).
    public static func makeTLSConfiguration(_ files: RPCServerConfiguration.TLSFiles) throws -> TLSConfiguration {
        let chain = try NIOSSLCertificate.fromPEMFile(files.certificateChainPath)
        let key = try NIOSSLPrivateKey(file: files.privateKeyPath, format: .pem)
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        configuration.minimumTLSVersion = .tlsv12
        return configuration
    }
}
