import Logging
import OTel
import ServiceLifecycle
import Tracing

/// A process's tracing: off unless an OTLP endpoint is configured, then OpenTelemetry spans exported over OTLP/HTTP.
///
/// Off (the default) there is no tracer at all: no exporter task, no span, no header parsing on any request. On when
/// `OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is set, or `OTEL_TRACES_EXPORTER=otlp`
/// (which exports to `http://localhost:4318`); `OTEL_TRACES_EXPORTER=none` or `OTEL_SDK_DISABLED=true` keep it off.
/// swift-otel then reads the standard variables itself: `OTEL_SERVICE_NAME` (default: the service's name),
/// `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_EXPORTER_OTLP_*` (endpoint, headers, timeout, certificates),
/// `OTEL_TRACES_SAMPLER`/`_ARG`, `OTEL_PROPAGATORS` and `OTEL_BSP_*`.
public struct ServiceTracing: Sendable {
    /// The tracer every traced component is given; `nil` when tracing is off.
    public let tracer: (any Tracer)?
    /// What must run for spans to leave the process (batch processor, exporter); run before the service, so it stops
    /// after it and flushes the last spans.
    public let services: [any Service]

    /// Tracing off.
    public static let off = ServiceTracing(tracer: nil)

    /// Tracing on `tracer` (tests pass a recording tracer), with the services it needs run.
    public init(tracer: (any Tracer)?, services: [any Service] = []) {
        self.tracer = tracer
        self.services = services
    }

    /// Reads the OpenTelemetry variables and builds the OTLP/HTTP tracer when they ask for one.
    /// - Parameters:
    ///   - serviceName: `service.name` unless `OTEL_SERVICE_NAME` says otherwise.
    ///   - environment: the process's variables.
    ///   - logger: where swift-otel reports its own problems (an unreachable collector, a full queue).
    public init(serviceName: String, environment: ServiceEnvironment, logger: Logger) throws {
        guard try Self.isEnabled(environment) else {
            self = .off
            return
        }
        // swift-otel is built with OTLP/HTTP only, and would end the process (fatalError) if asked for gRPC.
        let protocolVariable =
            environment.string("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") != nil
            ? "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL" : "OTEL_EXPORTER_OTLP_PROTOCOL"
        if let wanted = environment.string(protocolVariable), wanted.lowercased().hasPrefix("grpc") {
            throw ConfigurationError(
                "\(protocolVariable) must be 'http/protobuf' or 'http/json' (OTLP/gRPC is not built in), got '\(wanted)'"
            )
        }
        var configuration = OTel.Configuration.default
        configuration.serviceName = serviceName
        configuration.traces.exporter = .otlp
        configuration.metrics.enabled = false  // metrics are Prometheus' (`GET /metrics`)
        configuration.logs.enabled = false
        configuration.diagnosticLogger = .custom(logger)
        do {
            let backend = try OTel.makeTracingBackend(configuration: configuration)
            self.init(tracer: backend.factory, services: [backend.service])
        } catch {
            throw ConfigurationError("OpenTelemetry tracing could not start: \(error)")
        }
    }

    /// Whether the variables turn tracing on; an exporter other than `otlp` or `none` is refused.
    static func isEnabled(_ environment: ServiceEnvironment) throws -> Bool {
        if environment.string("OTEL_SDK_DISABLED")?.lowercased() == "true" { return false }
        if let exporter = environment.string("OTEL_TRACES_EXPORTER")?.lowercased() {
            switch exporter {
            case "otlp": return true
            case "none": return false
            default: throw ConfigurationError("OTEL_TRACES_EXPORTER must be 'otlp' or 'none', got '\(exporter)'")
            }
        }
        return environment.string("OTEL_EXPORTER_OTLP_ENDPOINT") != nil
            || environment.string("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != nil
    }

    /// Adds `trace_id` and `span_id` of the active span to every log line; `nil` when tracing is off.
    public var metadataProvider: Logger.MetadataProvider? {
        tracer.map { Self.metadataProvider($0) }
    }

    private static func metadataProvider(_ tracer: some Tracer) -> Logger.MetadataProvider {
        Logger.MetadataProvider {
            guard let context = ServiceContext.current, let parent = tracer.traceParent(of: context) else { return [:] }
            return ["trace_id": "\(parent.traceID)", "span_id": "\(parent.spanID)"]
        }
    }
}
