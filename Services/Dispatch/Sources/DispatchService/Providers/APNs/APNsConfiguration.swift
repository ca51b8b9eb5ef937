import Crypto
import Foundation
import ServiceCore
import SharedModels

/// How push-dispatch reaches APNs: endpoint, token-based credentials, topic and the notification's shape.
///
/// Read from `SECUREPUSH_APNS_*` variables by ``fromEnvironment(_:)``, or built directly by tests.
public struct APNsConfiguration: Sendable {
    /// Apple's production endpoint.
    public static let productionURL = "https://api.push.apple.com"
    /// Apple's sandbox (development) endpoint, for apps signed with a development provisioning profile.
    public static let sandboxURL = "https://api.sandbox.push.apple.com"
    /// The alert title when none is configured.
    public static let defaultAlertTitle = SettingCatalog.apnsAlertTitle.defaultValue!
    /// The alert body when none is configured.
    public static let defaultAlertBody = SettingCatalog.apnsAlertBody.defaultValue!
    /// The longest notification id the payload size check allows for (ids are 36-character UUIDs).
    static let maxNotificationIDBytes = 128

    /// The APNs endpoint (`https://host[:port]`).
    public var baseURL: String
    /// A PEM file of CA certificates to trust instead of the system store (a private test CA); `nil`: system.
    public var caFile: String?
    /// The `.p8` token-signing key from the Apple developer account.
    public var signingKey: P256.Signing.PrivateKey
    /// The key's id (the `kid` of every provider token).
    public var keyID: String
    /// The developer team id (the `iss` of every provider token).
    public var teamID: String
    /// The app's bundle id: the `apns-topic` header.
    public var topic: String
    /// Alert (the default) or background pushes for every APNs device.
    public var mode: APNsPushMode
    /// The alert title shown until the app's Notification Service Extension replaces it.
    public var alertTitle: String
    /// The alert body shown until the app's Notification Service Extension replaces it.
    public var alertBody: String
    /// The age at which the provider token is replaced before use (Apple: between 20 and 60 minutes).
    public var tokenRefreshAge: Duration
    /// How often the idle connection is checked with an HTTP/2 PING; `nil` disables the check.
    public var pingInterval: Duration?
    /// How long the PING acknowledgement may take before the connection is given up.
    public var pingTimeout: Duration
    /// How long one request to APNs may take, connecting included.
    public var requestTimeout: Duration
    /// How long opening the connection (TCP and TLS) may take.
    public var connectTimeout: Duration

    public init(
        baseURL: String = APNsConfiguration.productionURL,
        caFile: String? = nil,
        signingKey: P256.Signing.PrivateKey,
        keyID: String,
        teamID: String,
        topic: String,
        mode: APNsPushMode = .alert,
        alertTitle: String = APNsConfiguration.defaultAlertTitle,
        alertBody: String = APNsConfiguration.defaultAlertBody,
        tokenRefreshAge: Duration = .seconds(50 * 60),
        pingInterval: Duration? = .seconds(60),
        pingTimeout: Duration = .seconds(5),
        requestTimeout: Duration = .seconds(10),
        connectTimeout: Duration = .seconds(5)
    ) {
        self.baseURL = baseURL
        self.caFile = caFile
        self.signingKey = signingKey
        self.keyID = keyID
        self.teamID = teamID
        self.topic = topic
        self.mode = mode
        self.alertTitle = alertTitle
        self.alertBody = alertBody
        self.tokenRefreshAge = tokenRefreshAge
        self.pingInterval = pingInterval
        self.pingTimeout = pingTimeout
        self.requestTimeout = requestTimeout
        self.connectTimeout = connectTimeout
    }

    /// Checks what cannot be checked per request: the alert text must leave the payload within APNs' 4096 bytes.
    public func validate() throws {
        guard mode == .alert else { return }
        let longestID = String(repeating: "f", count: Self.maxNotificationIDBytes)
        // A traced send adds its `traceparent`: room for it is kept.
        let traced = TraceParent(traceID: String(repeating: "f", count: 32), spanID: String(repeating: "f", count: 16))
        let size = APNsPayload(
            notificationID: longestID, mode: .alert, alertTitle: alertTitle, alertBody: alertBody, traceParent: traced
        ).encoded().count
        guard size <= APNsPayload.maxBytes else {
            throw ConfigurationError(
                "SECUREPUSH_APNS_ALERT_TITLE and SECUREPUSH_APNS_ALERT_BODY are too long: the alert payload would be "
                    + "\(size) bytes, APNs accepts at most \(APNsPayload.maxBytes)"
            )
        }
    }
}
