import SharedModels
import Tracing

extension Tracer {
    /// The W3C `traceparent` of `context` (the span it carries), as this tracer would send it; `nil` when the context
    /// is in no trace.
    public func traceParent(of context: ServiceContext) -> TraceParent? {
        var headers: [String: String] = [:]
        inject(context, into: &headers, using: TraceHeaderInjector())
        return headers["traceparent"].flatMap(TraceParent.init)
    }

    /// A context continuing `parent` (a `traceparent` stored or received earlier), for a child span or a link.
    public func context(continuing parent: TraceParent) -> ServiceContext {
        var context = ServiceContext.topLevel
        extract(["traceparent": parent.description], into: &context, using: TraceHeaderExtractor())
        return context
    }
}

/// Writes trace headers into a dictionary (lowercased names).
struct TraceHeaderInjector: Injector {
    func inject(_ value: String, forKey key: String, into carrier: inout [String: String]) {
        carrier[key.lowercased()] = value
    }
}

/// Reads trace headers from a dictionary (lowercased names).
struct TraceHeaderExtractor: Extractor {
    func extract(key: String, from carrier: [String: String]) -> String? {
        carrier[key.lowercased()]
    }
}
