import ServiceCore
import SharedModels
import Tracing

/// The spans of deliveries: one around each provider attempt and one for each event the direct channel writes.
///
/// A job runs long after the `push.send` that queued it, in a worker with no request around it: its span continues
/// the send's trace (the `traceparent` stored with the job) and links to the send's span, so one notification's
/// journey — send, store, every attempt, the device's fetch — is one trace. A job without a stored trace starts its
/// own. Off (no tracer) nothing is created.
public struct DeliveryTracing: Sendable {
    /// The tracer; `nil` traces nothing.
    public let tracer: (any Tracer)?

    /// No spans.
    public static let off = DeliveryTracing(tracer: nil)

    public init(tracer: (any Tracer)?) {
        self.tracer = tracer
    }

    /// Starts the span of `operation` on `job` (`push.deliver`, `direct.write`); `nil` when tracing is off. End it.
    func start(_ operation: String, job: DeliveryJob, platform: Platform, kind: SpanKind) -> (any Span)? {
        guard let tracer else { return nil }
        return Self.start(tracer, operation, job: job, platform: platform, kind: kind)
    }

    /// Runs `body` with `span` as the current span (so whatever it calls is a child of it).
    func run<T>(in span: (any Span)?, _ body: () async -> T) async -> T {
        guard let span else { return await body() }
        return await ServiceContext.withValue(span.context) { await body() }
    }

    private static func start(
        _ tracer: some Tracer, _ operation: String, job: DeliveryJob, platform: Platform, kind: SpanKind
    ) -> any Span {
        let send = job.traceParent.map { tracer.context(continuing: $0) }
        let span = tracer.startSpan(operation, context: send ?? .topLevel, ofKind: kind)
        if let send { span.addLink(SpanLink(context: send, attributes: [:])) }
        span.attributes["securepush.platform"] = platform.rawValue
        span.attributes["securepush.delivery.attempt"] = job.attempts + 1
        return span
    }
}
