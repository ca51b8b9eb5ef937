import Foundation

/// An answer the mock APNs gives, as Apple documents it: status, `reason` in a JSON body, and for 410 the
/// `timestamp` (milliseconds since 1970) of the moment the token stopped being valid.
public struct APNsMockAnswer: Sendable, Hashable {
    public var status: Int
    public var reason: String?
    public var timestamp: Date?
    public var retryAfter: String?

    public init(status: Int, reason: String? = nil, timestamp: Date? = nil, retryAfter: String? = nil) {
        self.status = status
        self.reason = reason
        self.timestamp = timestamp
        self.retryAfter = retryAfter
    }

    public static let success = APNsMockAnswer(status: 200)
    public static let badDeviceToken = APNsMockAnswer(status: 400, reason: "BadDeviceToken")
    public static let deviceTokenNotForTopic = APNsMockAnswer(status: 400, reason: "DeviceTokenNotForTopic")
    public static let badTopic = APNsMockAnswer(status: 400, reason: "BadTopic")
    public static let missingTopic = APNsMockAnswer(status: 400, reason: "MissingTopic")
    public static let invalidPushType = APNsMockAnswer(status: 400, reason: "InvalidPushType")
    public static let badPriority = APNsMockAnswer(status: 400, reason: "BadPriority")
    public static let badCollapseID = APNsMockAnswer(status: 400, reason: "BadCollapseId")
    public static let badMessageID = APNsMockAnswer(status: 400, reason: "BadMessageId")
    public static let badExpirationDate = APNsMockAnswer(status: 400, reason: "BadExpirationDate")
    public static let payloadEmpty = APNsMockAnswer(status: 400, reason: "PayloadEmpty")
    public static let missingProviderToken = APNsMockAnswer(status: 403, reason: "MissingProviderToken")
    public static let expiredProviderToken = APNsMockAnswer(status: 403, reason: "ExpiredProviderToken")
    public static let invalidProviderToken = APNsMockAnswer(status: 403, reason: "InvalidProviderToken")
    public static let badPath = APNsMockAnswer(status: 404, reason: "BadPath")
    public static let methodNotAllowed = APNsMockAnswer(status: 405, reason: "MethodNotAllowed")
    public static let payloadTooLarge = APNsMockAnswer(status: 413, reason: "PayloadTooLarge")
    public static let tooManyProviderTokenUpdates = APNsMockAnswer(status: 429, reason: "TooManyProviderTokenUpdates")
    public static let tooManyRequests = APNsMockAnswer(status: 429, reason: "TooManyRequests")
    public static let internalServerError = APNsMockAnswer(status: 500, reason: "InternalServerError")
    public static let serviceUnavailable = APNsMockAnswer(status: 503, reason: "ServiceUnavailable")

    /// `410 Unregistered` with the time the token stopped being valid.
    public static func unregistered(since date: Date) -> APNsMockAnswer {
        APNsMockAnswer(status: 410, reason: "Unregistered", timestamp: date)
    }

    /// The JSON body: `{"reason":…}` (and `timestamp` for 410); nothing for 200.
    public var body: Data {
        guard let reason else { return Data() }
        var object: [String: Any] = ["reason": reason]
        if let timestamp {
            object["timestamp"] = Int64((timestamp.timeIntervalSince1970 * 1000).rounded())
        }
        return (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
    }
}
