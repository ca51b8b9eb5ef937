import Metrics
import PKCS11
import Synchronization

/// Metrics of the PKCS#11 tokens holding a service's keys: `securepush_hsm_operations_total{operation, outcome}`
/// (`ok`, `error`) and `securepush_hsm_operation_duration_seconds{operation}` (`sign`, `encrypt`, `decrypt`, `find`,
/// `generate`, `probe`).
public enum HardwareModuleMetrics {
    /// (token, factory) pairs already observed: a token is one per process, and the services of `securepush up`
    /// that share it and a metrics factory count its operations once.
    private static let observed = Mutex<Set<[ObjectIdentifier]>>([])

    /// Records the operations of `tokens` (those not `nil`) into `factory` from now on.
    public static func observe(_ tokens: [PKCS11Token?], factory: any MetricsFactory) {
        for token in tokens.compactMap({ $0 }) {
            let pair = [ObjectIdentifier(token), ObjectIdentifier(factory as AnyObject)]
            guard observed.withLock({ $0.insert(pair).inserted }) else { continue }
            token.observe { operation, duration, succeeded in
                Counter(
                    label: "securepush_hsm_operations_total",
                    dimensions: [("operation", operation), ("outcome", succeeded ? "ok" : "error")], factory: factory
                ).increment()
                Timer(
                    label: "securepush_hsm_operation_duration_seconds", dimensions: [("operation", operation)],
                    factory: factory
                ).record(duration: duration)
            }
        }
    }
}
