import Foundation
import HTTP2Core
import JSONRPC
import Logging
import NIOCore
import SharedModels
import Synchronization
import Tracing

/// Routes the requests of one service on the HTTP/2 core: `POST /rpc`, `GET /health`, `GET /metrics` (when served on
/// the service port), then the service's own routes; anything else gets 404.
struct RPCRequestRouter: Sendable {
    /// Names the health body.
    let serviceName: String
    /// The service's JSON-RPC methods, with the metrics observer and tracing interceptor already set.
    let dispatcher: RPCDispatcher
    let maxBodyBytes: Int
    let addresses: ClientAddressResolver
    let metrics: RPCMetrics?
    /// Counts forwarding-header mismatches (`nil`: not counted).
    var loadMetrics: ServerLoadMetrics? = nil
    /// The browser origins that may read answers; preflights are answered here for every route.
    var cors = CORSPolicy.none
    /// Origins allowed beside ``cors``'s, decided per request (push-dispatch: its apps' origins); `nil`: none.
    var moreCORSOrigins: (@Sendable (String) -> Bool)?
    /// `http` or `https`: how this service's own origin is spelled.
    var scheme = "http"
    let tracing: (any RPCServerTracing)?
    let health: @Sendable () async -> [String: String]
    /// `nil` when `GET /metrics` is not served on this port.
    let metricsEndpoint: MetricsEndpoint?
    let routes: [RPCServerRoute]
    let logger: Logger
    private let requestIDs = RequestIDs()

    init(
        serviceName: String, dispatcher: RPCDispatcher, maxBodyBytes: Int, addresses: ClientAddressResolver,
        metrics: RPCMetrics?, tracing: (any RPCServerTracing)?,
        health: @escaping @Sendable () async -> [String: String],
        metricsEndpoint: MetricsEndpoint?, routes: [RPCServerRoute], logger: Logger
    ) {
        self.serviceName = serviceName
        self.dispatcher = dispatcher
        self.maxBodyBytes = maxBodyBytes
        self.addresses = addresses
        self.metrics = metrics
        self.tracing = tracing
        self.health = health
        self.metricsEndpoint = metricsEndpoint
        self.routes = routes
        self.logger = logger
    }

    /// The reply to `request`, with CORS headers for an allowed browser origin; runs on the connection's event loop.
    ///
    /// A `POST` from a browser page of another origin (its `Origin` neither allowed nor this service's own) is refused
    /// with 403 before it does anything: browsers send some cross-origin requests without asking first (a form, a
    /// `no-cors` fetch of a typeless body), and such a page must not sign in, register or fail sign-ins in someone's
    /// name. Clients that are not browsers send no `Origin` and are not affected.
    func handle(_ request: HTTP2Request, _ responder: HTTP2Responder) -> HTTP2Reply {
        guard let origin = request.headers["origin"] else { return route(request, responder) }
        let allowed = cors.allows(origin) || (origin != "null" && moreCORSOrigins?(origin.lowercased()) == true)
        if request.method == "OPTIONS", request.headers["access-control-request-method"] != nil {
            return .response(cors.preflightResponse(origin: origin, allowed: allowed))
        }
        guard allowed else {
            if request.method == "POST", !isOwnOrigin(origin, of: request) {
                return .response(
                    Self.errorResponse(
                        status: 403,
                        .invalidRequest("origin '\(origin.prefix(100))' is not allowed (SECUREPUSH_CORS_ORIGINS)")))
            }
            return route(request, responder)
        }
        let headers = cors.responseHeaders(origin: origin)
        switch route(request, responder.adding(headers)) {
        case .response(var response):
            response.headers.append(contentsOf: headers)
            return .response(response)
        case .async(let work):
            return .async {
                var response = await work()
                response.headers.append(contentsOf: headers)
                return response
            }
        case .deferred:
            return .deferred
        }
    }

    /// Whether `origin` is this service's own (a page it serves, e.g. the web inbox, calling it).
    private func isOwnOrigin(_ origin: String, of request: HTTP2Request) -> Bool {
        guard let authority = request.authority,
            let own = CORSPolicy.normalize("\(scheme)://\(authority)")
        else { return false }
        return CORSPolicy.normalize(origin) == own
    }

    /// The reply to `request` by path: RPC, health, metrics, then the service's routes.
    private func route(_ request: HTTP2Request, _ responder: HTTP2Responder) -> HTTP2Reply {
        let path = request.path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        switch (request.method, path) {
        case ("POST", "/rpc"):
            return rpc(request)
        case ("GET", "/health"):
            return .async { [health, serviceName] in await Self.healthResponse(service: serviceName, health: health) }
        case ("GET", "/metrics"):
            if let metricsEndpoint { return .response(metricsEndpoint.http2Response()) }
        default:
            break
        }
        for route in routes {
            if let reply = route(request, responder) { return reply }
        }
        return .response(HTTP2Response(status: 404))
    }

    private func rpc(_ request: HTTP2Request) -> HTTP2Reply {
        if let contentType = request.headers["content-type"], !Self.isJSON(contentType) {
            return .response(
                Self.errorResponse(status: 415, .invalidRequest("Content-Type must be application/json")))
        }
        // The core refuses larger bodies itself (413, `rejection`); this holds whatever limit it was given.
        guard request.body.readableBytes <= maxBodyBytes else {
            return .response(Self.tooLarge(limit: maxBodyBytes))
        }
        let context = RPCRequestContext(
            bearerToken: RPCRequestContext.bearerToken(fromAuthorization: request.headers["authorization"]),
            logger: logger, requestID: requestIDs.next(),
            clientAddress: clientAddress(of: request),
            deviceProof: request.headers["securepush-device-proof"],
            origin: request.headers["origin"]?.lowercased(),
            isOwnOrigin: request.headers["origin"].map { isOwnOrigin($0, of: request) } ?? false)
        // Copied as raw bytes: `Data(_:)` of the buffer's view goes through the generic sequence initializer, which
        // casts the view at run time (1.5% of the store's samples per `store.get`).
        let body = request.body.withUnsafeReadableBytes { Data($0) }
        let (dispatcher, metrics, tracing) = (self.dispatcher, self.metrics, self.tracing)
        metrics?.requestBytes.increment(by: body.count)
        // What needs no suspension is answered here, on the event loop: no task, no thread hop (see
        // docs/architecture.md, "The fetch path"). The rest runs in a task.
        let parsed: JSONValue
        switch dispatcher.handleImmediately(body: body, context: context) {
        case .answered(let answer):
            return .response(Self.rpcResponse(answer, metrics: metrics))
        case .suspend(let value):
            parsed = value
        }
        // Calls run in the caller's trace (when its headers carry one): each call's span is a child of it.
        let traceContext = tracing?.context(from: request.headers)
        return .async {
            metrics?.inFlight.increment()
            defer { metrics?.inFlight.decrement() }
            let answer: Data?
            if let traceContext {
                answer = await ServiceContext.withValue(traceContext) {
                    await dispatcher.handle(parsed: parsed, context: context)
                }
            } else {
                answer = await dispatcher.handle(parsed: parsed, context: context)
            }
            return Self.rpcResponse(answer, metrics: metrics)
        }
    }

    /// Whether a `Content-Type` is `application/json` (any case, parameters allowed), read without a lowercased copy.
    /// The bytes are compared in place (iterating two `UTF8View`s in step cost 0.5% of the store's samples).
    ///
    /// After the media type only parameters may follow (RFC 9110 §8.3.1: optional whitespace, then `;`): a longer
    /// subtype such as `application/json-seq` or `application/jsonx` is another type, not JSON.
    static func isJSON(_ contentType: String) -> Bool {
        var contentType = contentType
        return contentType.withUTF8 { given in
            let wanted: StaticString = "application/json"
            return wanted.withUTF8Buffer { wanted in
                guard given.count >= wanted.count else { return false }
                for index in wanted.indices where given[index] != wanted[index] {
                    guard given[index] &- UInt8(ascii: "A") < 26, given[index] | 0x20 == wanted[index] else {
                        return false
                    }
                }
                for byte in given[wanted.count...] where byte != UInt8(ascii: " ") && byte != UInt8(ascii: "\t") {
                    return byte == UInt8(ascii: ";")
                }
                return true
            }
        }
    }

    /// The HTTP response carrying a dispatcher's answer: 200 with its body, or 204 when there is none.
    private static func rpcResponse(_ answer: Data?, metrics: RPCMetrics?) -> HTTP2Response {
        guard let answer else { return HTTP2Response(status: 204) }
        metrics?.responseBytes.increment(by: answer.count)
        return jsonResponse(status: 200, answer)
    }

    /// The caller's address: the peer, or the client named by a trusted proxy's forwarding headers.
    private func clientAddress(of request: HTTP2Request) -> String? {
        let peer = request.remoteAddress?.ipAddress.map(ClientAddressResolver.canonicalPeer)
        // Most deployments trust no proxy: skip reading the headers at all.
        guard !addresses.trustedProxies.isEmpty else { return peer }
        let resolution = addresses.resolve(
            peer: peer, forwarded: request.headers.values("forwarded"),
            forwardedFor: request.headers.values("x-forwarded-for"))
        if resolution.headerMismatch {
            loadMetrics?.headerMismatch(expected: addresses.header, peer: peer, logger: logger)
        }
        return resolution.address
    }

    private static func healthResponse(
        service: String, health: @Sendable () async -> [String: String]
    ) async -> HTTP2Response {
        let checks = await health()
        let ready = checks.values.allSatisfy { $0 == "ok" }
        let body = ServiceHealth(status: ready ? "ok" : "unavailable", service: service, checks: checks)
        let data = (try? RPCCodec.makeEncoder().encode(body)) ?? Data()
        return jsonResponse(status: ready ? 200 : 503, data)
    }

    /// 413 with a JSON-RPC error naming the limit.
    static func tooLarge(limit: Int) -> HTTP2Response {
        errorResponse(status: 413, .invalidRequest("request body exceeds the limit of \(limit) bytes"))
    }

    /// A JSON-RPC error response (id `null`) with an HTTP status.
    static func errorResponse(status: Int, _ error: RPCError) -> HTTP2Response {
        let data = (try? RPCCodec.makeEncoder().encode(RPCResponse(id: .null, outcome: .error(error)))) ?? Data()
        return jsonResponse(status: status, data)
    }

    /// A response with a JSON body.
    static func jsonResponse(status: Int, _ data: Data) -> HTTP2Response {
        HTTP2Response(status: status, headers: ["content-type": "application/json"], body: ByteBuffer(bytes: data))
    }
}

/// Numbers the requests of one server for their loggers' `request.id`.
private final class RequestIDs: Sendable {
    private let counter = Atomic<UInt64>(0)

    func next() -> UInt64 { counter.add(1, ordering: .relaxed).newValue }
}
