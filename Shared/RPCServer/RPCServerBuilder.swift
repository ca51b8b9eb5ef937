import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdHTTP2
import JSONRPC
import Logging
import Metrics
import NIOCore
import NIOSSL
import ServiceLifecycle
import SharedModels
import Tracing

/// Builds the Hummingbird application every SecurePush service runs: `POST /rpc`, `GET /health`, and any extra routes.
public enum RPCServerBuilder {
    /// The router type services add extra routes to.
    public typealias ServiceRouter = Router<RPCServerRequestContext>

    /// Builds the application.
    /// - Parameters:
    ///   - serviceName: `auth`, `notification-store` or `push-dispatch`; names the logger and the health body.
    ///   - dispatcher: the service's JSON-RPC methods.
    ///   - configuration: address, TLS and limits.
    ///   - health: readiness checks, run on every `GET /health`; the service is ready when all say `"ok"`.
    ///   - services: background services (workers, purgers) the application runs and stops with itself.
    ///   - logger: the service's logger.
    ///   - metrics: where RPC metrics are recorded, and the registry `GET /metrics` serves (on the service port, or on
    ///     `configuration.metricsPort` when set).
    ///   - tracer: traces every call (one server span each, continuing the caller's `traceparent`); `nil` (tracing off)
    ///     costs nothing.
    ///   - addRoutes: adds service-specific routes (e.g. push-dispatch's event stream).
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
        addRoutes: (ServiceRouter) -> Void = { _ in },
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) throws -> some ApplicationProtocol {
        let router = ServiceRouter(context: RPCServerRequestContext.self)
        let maxBodyBytes = configuration.maxBodyBytes
        let addresses = ClientAddressResolver(trustedProxies: configuration.trustedProxies)
        let (dispatcher, rpcMetrics, tracing) = observe(
            dispatcher, serviceName: serviceName, metrics: metrics, tracer: tracer)
        var services = services
        if let registry = metrics.registry {
            let endpoint = MetricsEndpoint(metrics: metrics, registry: registry)
            if let port = configuration.metricsPort {
                services.append(endpoint.listener(host: configuration.host, port: port, logger: logger))
            } else {
                endpoint.addRoute(to: router)
            }
        }
        let (served, recorder) = (dispatcher, rpcMetrics)  // what the route captures, settled now
        @Sendable func serve(_ request: Request, _ context: RPCServerRequestContext) async throws -> Response {
            guard let recorder else {
                return try await handleRPC(
                    request: request, context: context, dispatcher: served, maxBodyBytes: maxBodyBytes,
                    addresses: addresses)
            }
            recorder.inFlight.increment()
            defer { recorder.inFlight.decrement() }
            let response = try await handleRPC(
                request: request, context: context, dispatcher: served, maxBodyBytes: maxBodyBytes,
                addresses: addresses, metrics: recorder)
            return response
        }
        router.post("/rpc") { request, context in
            guard let tracing else { return try await serve(request, context) }
            // Calls run in the caller's trace (when its headers carry one): each call's span is a child of it.
            return try await ServiceContext.withValue(tracing.context(from: request.headers)) {
                try await serve(request, context)
            }
        }
        router.get("/health") { _, _ in
            let checks = await health()
            let ready = checks.values.allSatisfy { $0 == "ok" }
            let body = ServiceHealth(status: ready ? "ok" : "unavailable", service: serviceName, checks: checks)
            let data = (try? RPCCodec.makeEncoder().encode(body)) ?? Data()
            return jsonResponse(status: ready ? .ok : .serviceUnavailable, data)
        }
        addRoutes(router)

        let server = try makeServer(configuration: configuration)
        return Application(
            router: router,
            server: server,
            configuration: .init(
                address: .hostname(configuration.host, port: configuration.port), serverName: serviceName),
            services: services,
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? configuration.port) },
            logger: logger
        )
    }

    static func handleRPC(
        request: Request,
        context: RPCServerRequestContext,
        dispatcher: RPCDispatcher,
        maxBodyBytes: Int,
        addresses: ClientAddressResolver,
        metrics: RPCMetrics? = nil
    ) async throws -> Response {
        if let contentType = request.headers[.contentType],
            !contentType.lowercased().hasPrefix("application/json")
        {
            return errorResponse(.unsupportedMediaType, .invalidRequest("Content-Type must be application/json"))
        }
        // Built only when needed: encoding it on every request cost ~3% of the fetch path.
        func tooLarge() -> Response {
            errorResponse(.contentTooLarge, .invalidRequest("request body exceeds the limit of \(maxBodyBytes) bytes"))
        }
        if let declared = request.headers[.contentLength].flatMap({ Int($0) }), declared > maxBodyBytes {
            return tooLarge()  // refuse before reading a byte of it
        }
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: maxBodyBytes)
        } catch is NIOTooManyBytesError {
            return tooLarge()
        }
        metrics?.requestBytes.increment(by: buffer.readableBytes)
        let rpcContext = RPCRequestContext(
            bearerToken: RPCRequestContext.bearerToken(fromAuthorization: request.headers[.authorization]),
            logger: context.logger,
            clientAddress: clientAddress(of: request, context: context, addresses: addresses),
            deviceProof: request.headers[.securePushDeviceProof]
        )
        guard let data = await dispatcher.handle(body: Data(buffer: buffer), context: rpcContext) else {
            return Response(status: .noContent)
        }
        metrics?.responseBytes.increment(by: data.count)
        return jsonResponse(status: .ok, data)
    }

    /// The caller's address: the peer, or the client named by a trusted proxy's forwarding headers.
    static func clientAddress(
        of request: Request, context: RPCServerRequestContext, addresses: ClientAddressResolver
    ) -> String? {
        let peer = context.remoteAddress?.ipAddress.map(ClientAddressResolver.canonicalPeer)
        // Most deployments trust no proxy: skip reading the headers at all.
        guard !addresses.trustedProxies.isEmpty else { return peer }
        return addresses.clientAddress(
            peer: peer,
            forwarded: request.headers[values: .forwarded],
            forwardedFor: request.headers[values: .xForwardedFor])
    }

    static func errorResponse(_ status: HTTPResponse.Status, _ error: RPCError) -> Response {
        let data = (try? RPCCodec.makeEncoder().encode(RPCResponse(id: .null, outcome: .error(error)))) ?? Data()
        return jsonResponse(status: status, data)
    }

    /// A response with a JSON body.
    public static func jsonResponse(status: HTTPResponse.Status, _ data: Data) -> Response {
        Response(
            status: status,
            headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(bytes: data))
        )
    }
}

extension HTTPField.Name {
    /// `Forwarded` (RFC 7239).
    static let forwarded = HTTPField.Name("Forwarded")!
    /// `X-Forwarded-For`, the de-facto predecessor of `Forwarded`.
    static let xForwardedFor = HTTPField.Name("X-Forwarded-For")!
    /// `SecurePush-Device-Proof`: a device's signed proof for fetching its sealed copy (docs/rpc.md).
    static let securePushDeviceProof = HTTPField.Name("SecurePush-Device-Proof")!
}
