import HTTP2Core
import JSONRPC
import Tracing

/// Traces a service's JSON-RPC calls: the caller's W3C `traceparent`/`tracestate` continue into one server span per
/// call, named by the method, with `rpc.system`, `rpc.method` and (on failure) `rpc.jsonrpc.error_code`, never a
/// param, id or payload.
public protocol RPCServerTracing: RPCCallInterceptor {
    /// The trace context the request's headers carry; a missing or malformed header gives a context without one.
    func context(from headers: HTTP2Headers) -> ServiceContext
}

/// ``RPCServerTracing`` on a tracer.
struct RPCServerSpans<T: Tracer>: RPCServerTracing {
    let tracer: T

    func context(from headers: HTTP2Headers) -> ServiceContext {
        var context = ServiceContext.topLevel
        tracer.extract(headers, into: &context, using: HTTP2HeadersExtractor())
        return context
    }

    func intercept(method: String, _ call: () async -> RPCResponse.Outcome) async -> RPCResponse.Outcome {
        let span = tracer.startSpan(method, context: ServiceContext.current ?? .topLevel, ofKind: .server)
        span.attributes["rpc.system"] = "jsonrpc"
        span.attributes["rpc.method"] = method
        let outcome = await ServiceContext.withValue(span.context) { await call() }
        if case .error(let error) = outcome {
            span.attributes["rpc.jsonrpc.error_code"] = error.code
            // The server's own failures (internal error, a peer unavailable) are errors; refusals of bad calls are not.
            if error.code == RPCErrorCode.internalError || error.code == RPCErrorCode.unavailable {
                span.setStatus(SpanStatus(code: .error))
            }
        }
        span.end()
        return outcome
    }
}

extension RPCServerBuilder {
    /// Server-side tracing on `tracer`; `nil` (tracing off) when there is no tracer.
    public static func tracing(_ tracer: (any Tracer)?) -> (any RPCServerTracing)? {
        guard let tracer else { return nil }
        return spans(tracer)
    }

    private static func spans(_ tracer: some Tracer) -> any RPCServerTracing {
        RPCServerSpans(tracer: tracer)
    }
}

/// Reads trace headers out of a request's fields (names are lowercase there; lookups ignore case).
struct HTTP2HeadersExtractor: Extractor {
    func extract(key: String, from carrier: HTTP2Headers) -> String? { carrier[key] }
}
