import CoreMetrics
import JSONRPC
import Metrics
import Synchronization

/// The RPC metrics of one service: calls by method and outcome code, latency by method, requests in flight, bytes.
///
/// Method labels are only the service's registered names plus `unknown` and `invalid` (``RPCCallObserver``), and
/// codes are the few the services answer with, so every label set is bounded.
final class RPCMetrics: RPCCallObserver {
    private let service: String
    private let factory: any MetricsFactory
    private let timers: [String: Timer]
    private let counters = Mutex<[CounterKey: Counter]>([:])
    /// Requests on `POST /rpc` being handled now.
    let inFlight: Meter
    /// Bytes of request bodies read.
    let requestBytes: Counter
    /// Bytes of response bodies written.
    let responseBytes: Counter

    private struct CounterKey: Hashable {
        var method: String
        var code: Int?
    }

    init(service: String, methods: Set<String>, factory: any MetricsFactory) {
        self.service = service
        self.factory = factory
        var timers: [String: Timer] = [:]
        for method in methods.union([Self.unknownMethod, Self.invalidRequest]) {
            timers[method] = Timer(
                label: "securepush_rpc_request_duration_seconds",
                dimensions: [("service", service), ("method", method)], factory: factory)
        }
        self.timers = timers
        inFlight = Meter(
            label: "securepush_rpc_requests_in_flight", dimensions: [("service", service)], factory: factory)
        requestBytes = Counter(
            label: "securepush_rpc_request_bytes_total", dimensions: [("service", service)], factory: factory)
        responseBytes = Counter(
            label: "securepush_rpc_response_bytes_total", dimensions: [("service", service)], factory: factory)
    }

    func callEnded(method: String, errorCode: Int?, duration: Duration) {
        timers[method]?.record(duration: duration)
        let key = CounterKey(method: method, code: errorCode)
        let counter = counters.withLock { counters in
            if let counter = counters[key] { return counter }
            let counter = Counter(
                label: "securepush_rpc_requests_total",
                dimensions: [("service", service), ("method", method), ("code", errorCode.map { "\($0)" } ?? "ok")],
                factory: factory)
            counters[key] = counter
            return counter
        }
        counter.increment()
    }
}
