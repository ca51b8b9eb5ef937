import SharedModels
import Synchronization
import Tracing

/// A tracer for tests: keeps every finished span in memory and propagates W3C `traceparent` as OpenTelemetry does,
/// so spans made in several services over real sockets can be checked for one trace.
public final class RecordingTracer: Tracer, Sendable {
    /// A span that ended.
    public struct FinishedSpan: Sendable {
        public var name: String
        public var kind: SpanKind
        public var traceID: String
        public var spanID: String
        /// The span it is a child of (possibly in another process); `nil` for a root.
        public var parentSpanID: String?
        public var attributes: SpanAttributes
        /// The spans it links to.
        public var links: [TraceParent]
        public var status: SpanStatus?
        public var errors: [String]
    }

    private let finished = Mutex<[FinishedSpan]>([])

    public init() {}

    /// Every span ended so far, in the order they ended.
    public var finishedSpans: [FinishedSpan] { finished.withLock { $0 } }

    /// The ended spans matching `predicate`, waiting up to `timeout` for the first one (a server span may end a moment
    /// after its response reached the client); empty when none ended in time.
    public func spans(
        where predicate: (FinishedSpan) -> Bool, timeout: Duration = .seconds(5)
    ) async -> [FinishedSpan] {
        let deadline = ContinuousClock.now + timeout
        while true {
            let matching = finishedSpans.filter(predicate)
            if !matching.isEmpty || ContinuousClock.now >= deadline { return matching }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Forgets the spans ended so far.
    public func reset() { finished.withLock { $0.removeAll() } }

    public func startSpan<Instant: TracerInstant>(
        _ operationName: String,
        context: @autoclosure () -> ServiceContext,
        ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant,
        function: String,
        file fileID: String,
        line: UInt
    ) -> RecordingSpan {
        let parentContext = context()
        let parent = parentContext[SpanContextKey.self]
        let traceID = parent?.traceID ?? Self.randomHex(16)
        let identity = TraceParent(traceID: traceID, spanID: Self.randomHex(8))!
        var spanContext = parentContext
        spanContext[SpanContextKey.self] = identity
        return RecordingSpan(
            name: operationName, kind: kind, context: spanContext, parentSpanID: parent?.spanID
        ) { span in
            self.finished.withLock { $0.append(span) }
        }
    }

    public func forceFlush() {}

    public func inject<Carrier, Inject: Injector>(
        _ context: ServiceContext, into carrier: inout Carrier, using injector: Inject
    ) where Inject.Carrier == Carrier {
        guard let identity = context[SpanContextKey.self] else { return }
        injector.inject(identity.description, forKey: "traceparent", into: &carrier)
    }

    public func extract<Carrier, Extract: Extractor>(
        _ carrier: Carrier, into context: inout ServiceContext, using extractor: Extract
    ) where Extract.Carrier == Carrier {
        guard let value = extractor.extract(key: "traceparent", from: carrier), let parent = TraceParent(value) else {
            return
        }
        context[SpanContextKey.self] = parent
    }

    private static func randomHex(_ bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<bytes).map { _ in
            let byte = UInt8.random(in: 0...255, using: &generator)
            return String(byte, radix: 16).leftPadded(to: 2)
        }.joined()
    }

    /// Where a span's identity lives in a service context.
    enum SpanContextKey: ServiceContextKey {
        typealias Value = TraceParent
    }
}

/// A ``RecordingTracer``'s span.
public final class RecordingSpan: Span {
    private struct State {
        var name: String
        var attributes: SpanAttributes = [:]
        var links: [TraceParent] = []
        var status: SpanStatus?
        var errors: [String] = []
        var isRecording = true
    }

    public let context: ServiceContext
    let kind: SpanKind
    let parentSpanID: String?
    private let state: Mutex<State>
    private let onEnd: @Sendable (RecordingTracer.FinishedSpan) -> Void

    init(
        name: String, kind: SpanKind, context: ServiceContext, parentSpanID: String?,
        onEnd: @escaping @Sendable (RecordingTracer.FinishedSpan) -> Void
    ) {
        self.context = context
        self.kind = kind
        self.parentSpanID = parentSpanID
        self.state = Mutex(State(name: name))
        self.onEnd = onEnd
    }

    public var isRecording: Bool { state.withLock { $0.isRecording } }

    public var operationName: String {
        get { state.withLock { $0.name } }
        set { state.withLock { $0.name = newValue } }
    }

    public var attributes: SpanAttributes {
        get { state.withLock { $0.attributes } }
        set { state.withLock { $0.attributes = newValue } }
    }

    public func setStatus(_ status: SpanStatus) { state.withLock { $0.status = status } }

    public func addEvent(_ event: SpanEvent) {}

    public func addLink(_ link: SpanLink) {
        guard let target = link.context[RecordingTracer.SpanContextKey.self] else { return }
        state.withLock { $0.links.append(target) }
    }

    public func recordError(
        _ error: any Error, attributes: SpanAttributes, at instant: @autoclosure () -> some TracerInstant
    ) {
        state.withLock { $0.errors.append("\(error)") }
    }

    public func end(at instant: @autoclosure () -> some TracerInstant) {
        let ended: State? = state.withLock { state in
            guard state.isRecording else { return nil }
            state.isRecording = false
            return state
        }
        guard let ended, let identity = context[RecordingTracer.SpanContextKey.self] else { return }
        onEnd(
            RecordingTracer.FinishedSpan(
                name: ended.name, kind: kind, traceID: identity.traceID, spanID: identity.spanID,
                parentSpanID: parentSpanID, attributes: ended.attributes, links: ended.links, status: ended.status,
                errors: ended.errors))
    }
}

extension String {
    fileprivate func leftPadded(to length: Int) -> String {
        count >= length ? self : String(repeating: "0", count: length - count) + self
    }
}
