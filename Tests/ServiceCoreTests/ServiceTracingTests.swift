import Foundation
import Logging
import ServiceCore
import SharedModels
import TestSupport
import Testing
import Tracing

/// Tracing is off unless the OpenTelemetry variables ask for it, and log lines name the active span.
@Suite("Service tracing")
struct ServiceTracingTests {
    static let logger = Logger(label: "otel") { _ in SwiftLogNoOpLogHandler() }

    @Test("off by default: no tracer, nothing to run, no log metadata")
    func offByDefault() throws {
        let tracing = try ServiceTracing(
            serviceName: "push-dispatch", environment: ServiceEnvironment([:]), logger: Self.logger)
        #expect(tracing.tracer == nil)
        #expect(tracing.services.isEmpty)
        #expect(tracing.metadataProvider == nil)
    }

    @Test(
        "OTEL_TRACES_EXPORTER=none or OTEL_SDK_DISABLED=true keep it off even with an endpoint",
        arguments: [["OTEL_TRACES_EXPORTER": "none"], ["OTEL_SDK_DISABLED": "true"]])
    func explicitlyOff(variables: [String: String]) throws {
        var environment = variables
        environment["OTEL_EXPORTER_OTLP_ENDPOINT"] = "http://127.0.0.1:4318"
        let tracing = try ServiceTracing(
            serviceName: "auth", environment: ServiceEnvironment(environment), logger: Self.logger)
        #expect(tracing.tracer == nil)
        #expect(tracing.services.isEmpty)
    }

    @Test(
        "an OTLP endpoint (or OTEL_TRACES_EXPORTER=otlp) turns it on: a tracer and its exporter to run",
        arguments: [
            ["OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"],
            ["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:4318/v1/traces"],
            ["OTEL_TRACES_EXPORTER": "otlp"],
        ])
    func onWithEndpoint(variables: [String: String]) throws {
        let tracing = try ServiceTracing(
            serviceName: "notification-store", environment: ServiceEnvironment(variables), logger: Self.logger)
        #expect(tracing.tracer != nil)
        #expect(tracing.services.count == 1)
        #expect(tracing.metadataProvider != nil)
    }

    @Test("an exporter SecurePush does not have is refused at start, naming the variable")
    func unknownExporter() {
        let error = #expect(throws: ConfigurationError.self) {
            try ServiceTracing(
                serviceName: "auth", environment: ServiceEnvironment(["OTEL_TRACES_EXPORTER": "zipkin"]),
                logger: Self.logger)
        }
        #expect(error?.description.contains("OTEL_TRACES_EXPORTER") == true)
    }

    @Test(
        "OTLP/gRPC (not built in) is refused at start, naming the variable, instead of ending the process",
        arguments: ["OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"])
    func grpcRefused(variable: String) {
        let environment = ["OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4317", variable: "grpc"]
        let error = #expect(throws: ConfigurationError.self) {
            try ServiceTracing(serviceName: "auth", environment: ServiceEnvironment(environment), logger: Self.logger)
        }
        #expect(error?.description.contains(variable) == true)
    }

    @Test("a JSON log line written inside a span carries its trace_id and span_id; outside, neither")
    func logLinesNameTheSpan() async throws {
        let tracer = RecordingTracer()
        let tracing = ServiceTracing(tracer: tracer)
        let lines = JSONLogHandlerTests.Lines()
        var logger = Logger(label: "push-dispatch") { label in
            JSONLogHandler(label: label, metadataProvider: tracing.metadataProvider, sink: { lines.append($0) })
        }
        logger.logLevel = .debug
        tracer.withSpan("push.send", ofKind: .server) { _ in
            logger.debug("inside")
        }
        logger.debug("outside")

        let span = try #require(tracer.finishedSpans.first)
        let objects = try lines.objects()
        #expect(objects.count == 2)
        #expect(objects[0]["trace_id"] as? String == span.traceID)
        #expect(objects[0]["span_id"] as? String == span.spanID)
        #expect(objects[1]["trace_id"] == nil)
        #expect(objects[1]["span_id"] == nil)
    }

    @Test("a stored traceparent gives a context continuing it: a child span is in the same trace")
    func continuesStoredTrace() throws {
        let tracer = RecordingTracer()
        let stored = try #require(TraceParent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"))
        let span = tracer.startSpan("push.deliver", context: tracer.context(continuing: stored), ofKind: .client)
        #expect(tracer.traceParent(of: span.context)?.traceID == stored.traceID)
        span.end()
        let finished = try #require(tracer.finishedSpans.first)
        #expect(finished.parentSpanID == stored.spanID)
        #expect(tracer.traceParent(of: .topLevel) == nil)
    }
}
