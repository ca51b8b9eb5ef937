import HTTP2Core
import Hummingbird
import Logging
import NIOCore
import Prometheus

/// `GET /metrics`: the service's registry in the Prometheus text exposition format (version 0.0.4), with the
/// process's memory and file descriptors read at each scrape.
struct MetricsEndpoint: Sendable {
    let registry: PrometheusCollectorRegistry
    let process: ProcessMetrics

    init(metrics: ServiceMetrics, registry: PrometheusCollectorRegistry) {
        self.registry = registry
        self.process = ProcessMetrics(factory: metrics.factory)
    }

    /// The exposition's content type.
    static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// The current exposition.
    func exposition() -> ByteBuffer {
        process.update()
        var buffer: [UInt8] = []
        buffer.reserveCapacity(16 << 10)
        registry.emit(into: &buffer)
        return ByteBuffer(bytes: buffer)
    }

    /// The current exposition, as a Hummingbird response.
    func response() -> Response {
        Response(
            status: .ok, headers: [.contentType: Self.contentType], body: .init(byteBuffer: exposition()))
    }

    /// The current exposition, as a response on the HTTP/2 core.
    func http2Response() -> HTTP2Response {
        HTTP2Response(status: 200, headers: ["content-type": Self.contentType], body: exposition())
    }

    /// Adds `GET /metrics` to `router`.
    func addRoute<Context: RequestContext>(to router: Router<Context>) {
        router.get("/metrics") { _, _ in response() }
    }

    /// A plain HTTP/1.1 listener serving only `GET /metrics` on `host:port` (`SECUREPUSH_METRICS_PORT`), so the metrics
    /// can stay on a private interface or port while the service port is public.
    func listener(host: String, port: Int, logger: Logger) -> some ApplicationProtocol {
        let router = Router()
        addRoute(to: router)
        return Application(
            router: router, configuration: .init(address: .hostname(host, port: port), serverName: "metrics"),
            logger: logger)
    }
}
