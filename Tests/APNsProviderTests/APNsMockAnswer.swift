import Foundation

/// An answer the mock APNs gives, as Apple documents it: status, `reason` in a JSON body, and for 410 the
/// `timestamp` (milliseconds since 1970) of the moment the token stopped being valid.
struct APNsMockAnswer: Sendable, Hashable {
    var status: Int
    var reason: String?
    var timestamp: Date?
    var retryAfter: String?

    static let success = APNsMockAnswer(status: 200)
    static let badDeviceToken = APNsMockAnswer(status: 400, reason: "BadDeviceToken")
    static let deviceTokenNotForTopic = APNsMockAnswer(status: 400, reason: "DeviceTokenNotForTopic")
    static let badTopic = APNsMockAnswer(status: 400, reason: "BadTopic")
    static let missingTopic = APNsMockAnswer(status: 400, reason: "MissingTopic")
    static let invalidPushType = APNsMockAnswer(status: 400, reason: "InvalidPushType")
    static let badPriority = APNsMockAnswer(status: 400, reason: "BadPriority")
    static let badMessageID = APNsMockAnswer(status: 400, reason: "BadMessageId")
    static let badExpirationDate = APNsMockAnswer(status: 400, reason: "BadExpirationDate")
    static let payloadEmpty = APNsMockAnswer(status: 400, reason: "PayloadEmpty")
    static let missingProviderToken = APNsMockAnswer(status: 403, reason: "MissingProviderToken")
    static let expiredProviderToken = APNsMockAnswer(status: 403, reason: "ExpiredProviderToken")
    static let invalidProviderToken = APNsMockAnswer(status: 403, reason: "InvalidProviderToken")
    static let badPath = APNsMockAnswer(status: 404, reason: "BadPath")
    static let methodNotAllowed = APNsMockAnswer(status: 405, reason: "MethodNotAllowed")
    static let payloadTooLarge = APNsMockAnswer(status: 413, reason: "PayloadTooLarge")
    static let tooManyProviderTokenUpdates = APNsMockAnswer(status: 429, reason: "TooManyProviderTokenUpdates")
    static let tooManyRequests = APNsMockAnswer(status: 429, reason: "TooManyRequests")
    static let internalServerError = APNsMockAnswer(status: 500, reason: "InternalServerError")
    static let serviceUnavailable = APNsMockAnswer(status: 503, reason: "ServiceUnavailable")

    /// `410 Unregistered` with the time the token stopped being valid.
    static func unregistered(since date: Date) -> APNsMockAnswer {
        APNsMockAnswer(status: 410, reason: "Unregistered", timestamp: date)
    }

    /// The JSON body: `{"reason":…}` (and `timestamp` for 410); nothing for 200.
    var body: Data {
        guard let reason else { return Data() }
        var object: [String: Any] = ["reason": reason]
        if let timestamp {
            object["timestamp"] = Int64((timestamp.timeIntervalSince1970 * 1000).rounded())
        }
        return (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
    }
}
