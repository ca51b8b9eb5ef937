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
    /// Per method label: its latency timer, and for the service's own methods the `ok` counter, all made at start so
    /// that a successful call (the hot path) looks nothing up under a lock.
    private let methods: [String: MethodMetrics]
    /// Counters of calls that ended in an error code, made on first use (codes are few but not listed anywhere).
    private let errorCounters = Mutex<[CounterKey: Counter]>([:])
    /// Requests on `POST /rpc` being handled now.
    let inFlight: Meter
    /// Bytes of request bodies read.
    let requestBytes: Counter
    /// Bytes of response bodies written.
    let responseBytes: Counter

    private struct MethodMetrics {
        var timer: Timer
        var ok: Counter?
    }

    private struct CounterKey: Hashable {
        var method: String
        var code: Int
    }

    init(service: String, methods registered: Set<String>, factory: any MetricsFactory) {
        self.service = service
        self.factory = factory
        var methods: [String: MethodMetrics] = [:]
        for method in registered.union([Self.unknownMethod, Self.invalidRequest]) {
            let timer = Timer(
                label: "securepush_rpc_request_duration_seconds",
                dimensions: [("service", service), ("method", method)], factory: factory)
            // `unknown` and `invalid` calls never succeed: no `ok` series for them.
            let ok =
                registered.contains(method)
                ? Counter(
                    label: "securepush_rpc_requests_total",
                    dimensions: [("service", service), ("method", method), ("code", "ok")], factory: factory) : nil
            methods[method] = MethodMetrics(timer: timer, ok: ok)
        }
        self.methods = methods
        inFlight = Meter(
            label: "securepush_rpc_requests_in_flight", dimensions: [("service", service)], factory: factory)
        requestBytes = Counter(
            label: "securepush_rpc_request_bytes_total", dimensions: [("service", service)], factory: factory)
        responseBytes = Counter(
            label: "securepush_rpc_response_bytes_total", dimensions: [("service", service)], factory: factory)
    }

    func callEnded(method: String, errorCode: Int?, duration: Duration) {
        let known = methods[method]
        known?.timer.record(duration: duration)
        guard let errorCode else {
            known?.ok?.increment()
            return
        }
        let key = CounterKey(method: method, code: errorCode)
        let counter = errorCounters.withLock { counters in
            if let counter = counters[key] { return counter }
            let counter = Counter(
                label: "securepush_rpc_requests_total",
                dimensions: [("service", service), ("method", method), ("code", "\(errorCode)")], factory: factory)
            counters[key] = counter
            return counter
        }
        counter.increment()
    }
}
