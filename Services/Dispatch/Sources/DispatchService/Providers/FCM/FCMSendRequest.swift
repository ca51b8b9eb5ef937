import SharedModels

/// The body of `messages:send`: a data-only, high-priority message carrying only the notification id (and, when the
/// send was traced, its W3C `traceparent`).
///
/// Data-only so the app's `onMessageReceived` runs and fetches the payload itself; nothing is displayed by FCM.
struct FCMSendRequest: Encodable, Sendable {
    struct Message: Encodable, Sendable {
        var token: String
        var data: [String: String]
        var android: AndroidConfig
    }

    struct AndroidConfig: Encodable, Sendable {
        /// `high` (the default: data messages wake the app) or `normal`.
        var priority: String
        /// Seconds as a protobuf `Duration` string, e.g. `"3600s"`.
        var ttl: String
        /// The send's collapse id: FCM keeps only the newest message per key for an offline device.
        var collapseKey: String?

        enum CodingKeys: String, CodingKey {
            case priority, ttl
            case collapseKey = "collapse_key"
        }
    }

    /// FCM refuses a TTL above four weeks.
    static let maxTTLSeconds = 2_419_200

    var message: Message

    /// - Parameter ttlSeconds: seconds until the notification expires (clamped to 0...four weeks).
    /// - Parameter challenge: a device-verification challenge to send instead of the notification id, with
    ///   `deviceID`, the pending device it is for.
    init(
        registrationToken: String, notificationID: String, ttlSeconds: Int, traceParent: TraceParent? = nil,
        challenge: String? = nil, deviceID: String = "", priority: Push.Priority? = nil, collapseKey: String? = nil
    ) {
        let ttl = min(max(ttlSeconds, 0), Self.maxTTLSeconds)
        var data = ["secureId": notificationID]
        if let traceParent { data["traceparent"] = traceParent.description }
        if let challenge { data = [DeviceVerification.pushField: challenge, DeviceVerification.deviceField: deviceID] }
        message = Message(
            token: registrationToken,
            data: data,
            android: AndroidConfig(
                priority: priority == .normal ? "normal" : "high", ttl: "\(ttl)s",
                collapseKey: challenge == nil ? collapseKey : nil)
        )
    }
}
