import CoreMetrics
import ServiceCore
import SharedModels

/// What push-dispatch counts: deliveries by platform and final status, provider attempts by result, and the direct
/// channel's open streams and events written.
public struct DispatchMetrics: Sendable {
    private let factory: any MetricsFactory
    /// `securepush_direct_streams_open`: event streams open now.
    let openStreams: Meter
    /// `securepush_direct_events_written_total`: `push.notify` events written to event streams (re-sends included).
    let eventsWritten: Counter

    /// The final statuses a delivery can reach.
    static let finalStatuses = ["sent", "failed", "deactivated"]
    /// What one provider attempt can come to.
    static let attemptResults = ["sent", "retry", "failed", "deactivated"]
    /// Why a provider said a device is gone (a bounded set: providers' own reason texts are mapped onto it).
    static let deactivationReasons = ["unregistered", "expired", "bad_token", "other"]

    public init(factory: any MetricsFactory) {
        self.factory = factory
        openStreams = Meter(label: "securepush_direct_streams_open", factory: factory)
        eventsWritten = Counter(label: "securepush_direct_events_written_total", factory: factory)
    }

    /// Records nothing.
    public static var disabled: DispatchMetrics { DispatchMetrics(factory: NOOPMetricsHandler.instance) }

    /// `securepush_deliveries_total{platform,status}`: deliveries that reached a final status (for `direct`: written
    /// to the device's stream).
    func deliveries(_ platform: Platform) -> CounterFamily {
        CounterFamily(
            label: "securepush_deliveries_total", dimension: "status", values: Self.finalStatuses,
            fixed: [("platform", platform.rawValue)], factory: factory)
    }

    /// `securepush_devices_deactivated_total{platform,reason}`: devices a provider reported gone, which are no longer
    /// targeted.
    func deactivations(_ platform: Platform) -> CounterFamily {
        CounterFamily(
            label: "securepush_devices_deactivated_total", dimension: "reason", values: Self.deactivationReasons,
            fixed: [("platform", platform.rawValue)], factory: factory)
    }

    /// `securepush_provider_attempts_total{platform,result}`: every attempt through a remote provider.
    func attempts(_ platform: Platform) -> CounterFamily {
        CounterFamily(
            label: "securepush_provider_attempts_total", dimension: "result", values: Self.attemptResults,
            fixed: [("platform", platform.rawValue)], factory: factory)
    }
}

extension DeliveryOutcome {
    /// The `result` label of the attempt that produced this outcome.
    var metricResult: String {
        switch self {
        case .sent: "sent"
        case .retry: "retry"
        case .failed: "failed"
        case .deactivate, .deactivateIfRegisteredBefore: "deactivated"
        }
    }

    /// The `reason` label of a deactivation: the provider's reason text mapped onto
    /// ``DispatchMetrics/deactivationReasons`` (`nil` for outcomes that deactivate nothing).
    public var deactivationReason: String? {
        let text: String
        switch self {
        case .deactivate(let reason), .deactivateIfRegisteredBefore(_, let reason): text = reason
        default: return nil
        }
        let lowered = text.lowercased()
        if lowered.contains("baddevicetoken") || lowered.contains("devicetokennotfortopic") { return "bad_token" }
        if lowered.contains("expired") || lowered.hasPrefix("http 410") { return "expired" }
        if lowered.contains("unregistered") || lowered.hasPrefix("http 404") { return "unregistered" }
        return "other"
    }
}
