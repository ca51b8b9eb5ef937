import HTTP2Core
import Logging
import NIOCore
import Prometheus
import ServiceLifecycle

/// `GET /metrics`: the service's registry in the Prometheus text exposition format (version 0.0.4), with the
/// process's memory and file descriptors read at each scrape.
struct MetricsEndpoint: Sendable {
    let registry: PrometheusCollectorRegistry
    let process: ProcessMetrics
    /// The listener's connections and buffered bytes, read at each scrape (`nil`: not reported).
    var load: ServerLoadMetrics? = nil

    init(metrics: ServiceMetrics, registry: PrometheusCollectorRegistry, load: ServerLoadMetrics? = nil) {
        self.registry = registry
        self.process = ProcessMetrics(factory: metrics.factory)
        self.load = load
    }

    /// The exposition's content type.
    static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// The current exposition.
    func exposition() -> ByteBuffer {
        process.update()
        load?.update()
        var buffer: [UInt8] = []
        buffer.reserveCapacity(16 << 10)
        registry.emit(into: &buffer)
        return ByteBuffer(bytes: buffer)
    }

    /// The current exposition, as a response on the HTTP/2 core.
    func http2Response() -> HTTP2Response {
        HTTP2Response(status: 200, headers: ["content-type": Self.contentType], body: exposition())
    }

    /// A plain HTTP/1.1 listener serving only `GET /metrics` on `host:port` (`SECUREPUSH_METRICS_PORT`), so the metrics
    /// can stay on a private interface or port while the service port is public (Prometheus scrapes plain HTTP/1.1).
    func listener(host: String, port: Int, shutdownTimeout: Duration, logger: Logger) -> some Service {
        CoreServerListener(
            configuration: .init(host: host, port: port, cleartextHTTP1: true),
            handler: { request, _ in
                let path = request.path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first
                guard request.method == "GET", path == "/metrics" else { return .response(HTTP2Response(status: 404)) }
                return .response(http2Response())
            },
            shutdownTimeout: shutdownTimeout, logger: logger)
    }
}
