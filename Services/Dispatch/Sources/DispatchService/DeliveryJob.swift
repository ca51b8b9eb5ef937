import Foundation
import SharedModels

/// One notification id to deliver to one device: a `delivery` row, durable from the moment `push.send` answers.
public struct DeliveryJob: Sendable, Hashable {
    /// Monotonically increasing across all deliveries: the order a device receives its ids in.
    public var sequence: Int64
    public var notificationID: String
    public var deviceID: String
    public var platform: Platform
    /// The device's platform token (for providers that address devices by token).
    public var deviceToken: String?
    public var status: DeliveryStatus
    /// Delivery attempts so far.
    public var attempts: Int
    /// After this the notification is gone from the store; the job ends `expired`.
    public var expiresAt: Date
    /// The device's own APNs push mode (`alert` or `background`); `nil` uses the deployment's mode.
    public var apnsMode: String?
    /// The W3C trace context of the `push.send` that queued the job (when that send was traced): attempts continue
    /// its trace, and the device receives it with the id.
    public var traceParent: TraceParent?
    /// When `push.send` accepted the send that queued the job (read with the job, so every replica and every retry
    /// measures delivery latency from the same moment); `nil` when not known.
    public var sentAt: Date?
    /// A device-verification challenge to push instead of a notification id (``DeviceVerification``); such a job is
    /// never stored and its `notificationID` is empty.
    public var challenge: String?
    /// The app of the job's device: its credentials push the job.
    public var appID: String
    /// The send's `priority`; `nil`: the provider's default.
    public var priority: Push.Priority?
    /// The send's `collapseId`, for the providers that collapse (APNs, FCM, Web Push).
    public var collapseID: String?

    /// A one-off job pushing `challenge` to a pending device's token, valid for the verification window.
    public static func challenge(_ challenge: String, to device: DeviceRecord, until expiresAt: Date) -> DeliveryJob {
        var job = DeliveryJob(
            sequence: 0, notificationID: "", deviceID: device.id, platform: device.platform, deviceToken: device.token,
            status: .queued, attempts: 0, expiresAt: expiresAt, apnsMode: APNsPushMode.background.rawValue,
            appID: device.appID)
        job.challenge = challenge
        return job
    }

    public init(
        sequence: Int64, notificationID: String, deviceID: String, platform: Platform, deviceToken: String?,
        status: DeliveryStatus, attempts: Int, expiresAt: Date, apnsMode: String? = nil,
        traceParent: TraceParent? = nil, sentAt: Date? = nil, appID: String = AppCatalog.environmentAppID
    ) {
        self.appID = appID
        self.sequence = sequence
        self.notificationID = notificationID
        self.deviceID = deviceID
        self.platform = platform
        self.deviceToken = deviceToken
        self.status = status
        self.attempts = attempts
        self.expiresAt = expiresAt
        self.apnsMode = apnsMode
        self.traceParent = traceParent
        self.sentAt = sentAt
    }
}
