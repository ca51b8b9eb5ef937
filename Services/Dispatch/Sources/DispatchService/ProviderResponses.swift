import CoreMetrics
import SharedModels

/// Where a remote provider reports every answer its service gave, or that none came:
/// `securepush_provider_responses_total{platform,status,reason}`.
///
/// `status` is the HTTP status (a status outside the list providers document is counted by its class, `4xx`, …) or
/// `error` when no answer came (connection refused or lost, timeout). `reason` is the provider's own code (APNs
/// `reason`, the FCM error code or Google status, WNS `X-WNS-Status`) when it is one of the codes the provider
/// documents, `other` for any other text, `none` when the answer had none: whatever a service (or, for Web Push, an
/// endpoint a subscription names) sends, the labels stay a bounded set, never a token or an id.
public struct ProviderResponses: Sendable {
    let platform: Platform
    private let factory: any MetricsFactory

    /// The metric's name.
    public static let label = "securepush_provider_responses_total"

    /// Counts the answers of `platform`'s provider with `factory`.
    public init(platform: Platform, factory: any MetricsFactory) {
        self.platform = platform
        self.factory = factory
    }

    /// Counts nothing.
    public static func ignored(_ platform: Platform) -> ProviderResponses {
        ProviderResponses(platform: platform, factory: NOOPMetricsHandler.instance)
    }

    /// One answer with HTTP `status` and the provider's `reason` code (`nil` when it gave none).
    public func record(status: Int, reason: String?) {
        count(status: Self.statusLabel(status), reason: reason.map { Self.reasonLabel($0, platform: platform) })
    }

    /// No answer came (connection failed, timed out).
    public func recordTransportFailure() {
        count(status: "error", reason: nil)
    }

    private func count(status: String, reason: String?) {
        Counter(
            label: Self.label,
            dimensions: [("platform", platform.rawValue), ("status", status), ("reason", reason ?? "none")],
            factory: factory
        ).increment()
    }

    /// HTTP statuses push services document, labelled as themselves; others are labelled by their class.
    static let knownStatuses: Set<Int> = [
        200, 201, 202, 204, 400, 401, 403, 404, 405, 406, 410, 413, 429, 500, 502, 503, 504,
    ]

    /// The `status` label of HTTP `status`.
    static func statusLabel(_ status: Int) -> String {
        if knownStatuses.contains(status) { return String(status) }
        return (100..<600).contains(status) ? "\(status / 100)xx" : "other"
    }

    /// The `reason` label of a provider's reason code: the code itself when `platform` documents it, else `other`.
    static func reasonLabel(_ reason: String, platform: Platform) -> String {
        knownReasons[platform]?.contains(reason) == true ? reason : "other"
    }

    /// The reason codes each provider documents.
    static let knownReasons: [Platform: Set<String>] = [
        // APNs: "Handling notification responses from APNs", every `reason` listed.
        .apns: [
            "BadCollapseId", "BadDeviceToken", "BadExpirationDate", "BadMessageId", "BadPriority", "BadTopic",
            "DeviceTokenNotForTopic", "DuplicateHeaders", "IdleTimeout", "InvalidPushType", "MissingDeviceToken",
            "MissingTopic", "PayloadEmpty", "TopicDisallowed", "BadCertificate", "BadCertificateEnvironment",
            "ExpiredProviderToken", "Forbidden", "InvalidProviderToken", "MissingProviderToken",
            "UnrelatedKeyIdInToken", "BadEnvironmentKeyIdInToken", "BadPath", "MethodNotAllowed", "ExpiredToken",
            "Unregistered", "PayloadTooLarge", "TooManyProviderTokenUpdates", "TooManyRequests",
            "InternalServerError", "ServiceUnavailable", "Shutdown",
        ],
        // FCM HTTP v1: the `FcmError` codes, and the Google API statuses of answers without one.
        .fcm: [
            "UNSPECIFIED_ERROR", "INVALID_ARGUMENT", "UNREGISTERED", "SENDER_ID_MISMATCH", "QUOTA_EXCEEDED",
            "UNAVAILABLE", "INTERNAL", "THIRD_PARTY_AUTH_ERROR", "UNAUTHENTICATED", "PERMISSION_DENIED", "NOT_FOUND",
            "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "DEADLINE_EXCEEDED",
        ],
        // WNS: `X-WNS-Status` of an accepted notification.
        .wns: ["received", "dropped", "channelthrottled"],
    ]
}
