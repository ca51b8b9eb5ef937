import Testing

@testable import HTTP2Core
@testable import RPCServer

/// Counts the core keeps itself, exported as Prometheus counters at each scrape.
@Suite("ServerLoadMetrics: the core's counts at each scrape")
struct ServerLoadMetricsTests {
    @Test("header table failures become securepush_http2_header_table_failures_total, each counted once")
    func headerTableFailures() throws {
        let metrics = ServiceMetrics.prometheus()
        let registry = try #require(metrics.registry)
        let load = HTTP2ServerLoad()
        let serverMetrics = ServerLoadMetrics(load: load, factory: metrics.factory)
        func scrape() -> String {
            serverMetrics.update()
            var bytes: [UInt8] = []
            registry.emit(into: &bytes)
            return String(decoding: bytes, as: UTF8.self)
        }
        #expect(scrape().contains("securepush_http2_header_table_failures_total 0"))
        _ = load.recordHeaderTableFailure()
        _ = load.recordHeaderTableFailure()
        #expect(scrape().contains("securepush_http2_header_table_failures_total 2"))
        #expect(scrape().contains("securepush_http2_header_table_failures_total 2"), "a second scrape counted again")
        _ = load.recordHeaderTableFailure()
        #expect(scrape().contains("securepush_http2_header_table_failures_total 3"))
    }
}
