import CoreMetrics
import HTTP2Core
import Logging
import Synchronization

/// What the listener's connections cost, as metrics: connections refused at accept (by reason), forwarding-header
/// mismatches, and, read from the core at each scrape, open connections, the request and response bytes they
/// buffer, and connections closed because the client kept a header table it was told to shrink.
final class ServerLoadMetrics: Sendable {
    /// The core's counters, shared with the listener.
    let load: HTTP2ServerLoad
    private let refused: [HTTP2ConnectionAdmission.Refusal: Counter]
    private let openConnections: Gauge
    private let bufferedRequestBytes: Gauge
    private let pendingResponseBytes: Gauge
    private let headerMismatches: Counter
    private let headerTableFailures: Counter
    /// The core's header table failures already added to ``headerTableFailures``.
    private let headerTableFailuresCounted = Mutex(0)
    /// Lets `client_address.header_mismatch` be logged at most once a minute.
    private let mismatchLog = IntervalGate(interval: .seconds(60))

    init(load: HTTP2ServerLoad, factory: any MetricsFactory) {
        self.load = load
        var refused: [HTTP2ConnectionAdmission.Refusal: Counter] = [:]
        for reason in HTTP2ConnectionAdmission.Refusal.allCases {
            refused[reason] = Counter(
                label: "securepush_connections_refused_total", dimensions: [("reason", reason.rawValue)],
                factory: factory)
        }
        self.refused = refused
        openConnections = Gauge(label: "securepush_connections_open", factory: factory)
        bufferedRequestBytes = Gauge(label: "securepush_http_buffered_request_bytes", factory: factory)
        pendingResponseBytes = Gauge(label: "securepush_http_pending_response_bytes", factory: factory)
        headerMismatches = Counter(label: "securepush_forwarded_header_mismatch_total", factory: factory)
        headerTableFailures = Counter(label: "securepush_http2_header_table_failures_total", factory: factory)
    }

    /// A connection was refused at accept.
    func connectionRefused(_ reason: HTTP2ConnectionAdmission.Refusal) {
        refused[reason]?.increment()
    }

    /// Reads the core's current values into the gauges (at each scrape).
    func update() {
        openConnections.record(load.openConnections)
        bufferedRequestBytes.record(load.bufferedRequestBytes)
        pendingResponseBytes.record(load.pendingResponseBytes)
        let failures = load.headerTableFailureCount
        let new = headerTableFailuresCounted.withLock { counted in
            defer { counted = max(counted, failures) }
            return failures - counted
        }
        if new > 0 { headerTableFailures.increment(by: new) }
    }

    /// A trusted proxy's request carried the other forwarding header only: counted, and logged at most once a minute
    /// (a misconfigured proxy would otherwise log every request).
    func headerMismatch(expected: ClientAddressResolver.Header, peer: String?, logger: Logger) {
        headerMismatches.increment()
        guard mismatchLog.open() else { return }
        logger.warning(
            "client_address.header_mismatch",
            metadata: [
                "client_address.expected_header": "\(expected.rawValue)", "client_address.proxy": "\(peer ?? "?")",
                "client_address.hint":
                    "the trusted proxy sent the other forwarding header only: set SECUREPUSH_FORWARDED_HEADER to the header it writes",
            ])
    }
}
