import Metrics
import PKCS11
import Synchronization

/// Metrics of a PKCS#11 token's operations: `securepush_hsm_operations_total{operation, outcome}` (`ok`, `error`)
/// and `securepush_hsm_operation_duration_seconds{operation}` (`sign`, `encrypt`, `decrypt`, `find`, `generate`,
/// `probe`).
enum HardwareModuleMetrics {
    /// Tokens already observed: a token is one per process, shared by the services in it, and counted once.
    private static let observed = Mutex<Set<ObjectIdentifier>>([])

    /// Records `token`'s operations from now on (once per token, however many services open it).
    static func observe(_ token: PKCS11Token) {
        let isNew = observed.withLock { $0.insert(ObjectIdentifier(token)).inserted }
        guard isNew else { return }
        token.observe { operation, duration, succeeded in
            Counter(
                label: "securepush_hsm_operations_total",
                dimensions: [("operation", operation), ("outcome", succeeded ? "ok" : "error")]
            ).increment()
            Timer(label: "securepush_hsm_operation_duration_seconds", dimensions: [("operation", operation)])
                .record(duration: duration)
        }
    }
}
