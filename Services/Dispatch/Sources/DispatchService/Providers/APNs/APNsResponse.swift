import Foundation
import HTTP2Client
import NIOCore

/// An APNs answer, parsed: the status, Apple's `reason` code and what else matters for the outcome.
struct APNsResponse: Sendable {
    /// The HTTP status.
    var status: Int
    /// Apple's error code (`BadDeviceToken`, …), from the JSON body of every non-200 answer.
    var reason: String?
    /// For 410: when APNs last confirmed the token was no longer valid for the topic.
    var unregisteredSince: Date?
    /// The `apns-id` APNs echoes (ours, or the one it assigned).
    var apnsID: String?
    /// The `apns-unique-id` the sandbox adds, to look the notification up in Apple's delivery log.
    var apnsUniqueID: String?
    /// A `Retry-After` hint (seconds or HTTP date), if the server sent one.
    var retryAfter: Duration?

    private struct ErrorBody: Decodable {
        var reason: String?
        /// Milliseconds since 1970.
        var timestamp: Double?
    }

    /// Reasons are echoed into `lastError`: keep them short and printable, whatever the server sent.
    private static let maxReasonLength = 64

    init(_ response: HTTP2Response, now: Date) {
        status = response.status
        apnsID = response.header("apns-id")
        apnsUniqueID = response.header("apns-unique-id")
        retryAfter = RetryHint.delay(response.header("retry-after"), now: now)
        let body = try? JSONDecoder().decode(ErrorBody.self, from: Data(response.body.readableBytesView))
        reason = body?.reason.map(Self.sanitized).flatMap { $0.isEmpty ? nil : $0 }
        unregisteredSince = body?.timestamp.map { Date(timeIntervalSince1970: $0 / 1000) }
    }

    /// `reason`, or `HTTP <status>` when APNs gave none.
    var reasonText: String { reason ?? "HTTP \(status)" }

    /// What the answer means for the delivery.
    var outcome: DeliveryOutcome {
        switch status {
        case 200:
            return .sent
        case 410:
            // Unregistered (the app was removed) or ExpiredToken.
            if let unregisteredSince {
                return .deactivateIfRegisteredBefore(unregisteredSince, reason: reason ?? "Unregistered")
            }
            return .deactivate(reason: reason ?? "Unregistered")
        case 400 where reason == "BadDeviceToken" || reason == "DeviceTokenNotForTopic":
            return .deactivate(reason: reasonText)
        case 403 where reason == "ExpiredProviderToken":
            // Only reached when the token could not be replaced yet; a later attempt uses a new one.
            return .retry(after: retryAfter ?? .zero, reason: reasonText)
        case 429, 500...599:
            return .retry(after: retryAfter ?? .zero, reason: reasonText)
        default:
            return .failed(reason: reasonText)
        }
    }

    private static func sanitized(_ reason: String) -> String {
        let printable = reason.unicodeScalars.filter { (0x20..<0x7f).contains($0.value) }
        return String(String.UnicodeScalarView(printable).prefix(maxReasonLength))
    }
}
