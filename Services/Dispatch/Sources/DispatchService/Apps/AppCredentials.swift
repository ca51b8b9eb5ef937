import Crypto
import Foundation
import SharedModels

/// An app's provider credentials, as they are kept encrypted in the `app` table (``AppCredentialSealer``): the
/// secrets never leave push-dispatch except to the providers themselves, and only ``fingerprints`` are shown.
///
/// Connection settings (endpoint overrides, CA files, timeouts) stay the deployment's: `SECUREPUSH_APNS_URL`,
/// `SECUREPUSH_FCM_URL`… apply to every app.
public struct AppCredentials: Codable, Sendable, Hashable {
    /// APNs token-based credentials.
    public struct APNs: Codable, Sendable, Hashable {
        /// The Apple team id, e.g. `ABC123DEFG`.
        public var teamId: String
        /// The key id of the `.p8` key.
        public var keyId: String
        /// The `.p8` key (PEM, PKCS#8 P-256).
        public var privateKey: String
        /// The app's bundle id, sent as `apns-topic`.
        public var topic: String
        /// `production` or `sandbox`; unset: `SECUREPUSH_APNS_ENVIRONMENT`.
        public var environment: String?
        /// The alert title of `alert`-mode pushes; unset: `SECUREPUSH_APNS_ALERT_TITLE`.
        public var alertTitle: String?
        /// The alert body of `alert`-mode pushes; unset: `SECUREPUSH_APNS_ALERT_BODY`.
        public var alertBody: String?

        public init(
            teamId: String, keyId: String, privateKey: String, topic: String, environment: String? = nil,
            alertTitle: String? = nil, alertBody: String? = nil
        ) {
            self.teamId = teamId
            self.keyId = keyId
            self.privateKey = privateKey
            self.topic = topic
            self.environment = environment
            self.alertTitle = alertTitle
            self.alertBody = alertBody
        }
    }

    /// FCM HTTP v1 credentials.
    public struct FCM: Codable, Sendable, Hashable {
        /// The Google service account JSON (with `project_id`, `client_email`, `private_key`).
        public var serviceAccount: String

        public init(serviceAccount: String) {
            self.serviceAccount = serviceAccount
        }
    }

    public var apns: APNs?
    public var fcm: FCM?

    public init(apns: APNs? = nil, fcm: FCM? = nil) {
        self.apns = apns
        self.fcm = fcm
    }

    /// The remote platforms these credentials configure.
    public var platforms: [Platform] {
        (apns == nil ? [] : [.apns]) + (fcm == nil ? [] : [.fcm])
    }

    /// What `apps show` prints instead of secrets: per platform, the public identifiers and the first 16 hex digits
    /// of the SHA-256 of the secret, so an operator can tell which key is in use without seeing it.
    public var fingerprints: [String: String] {
        var result: [String: String] = [:]
        if let apns {
            result["apns"] =
                "team \(apns.teamId), key \(apns.keyId), topic \(apns.topic), sha256:\(Self.fingerprint(apns.privateKey))"
        }
        if let fcm {
            let project = (try? FCMServiceAccount.parse(Data(fcm.serviceAccount.utf8), source: "fcm"))?.projectID ?? "?"
            result["fcm"] = "project \(project), sha256:\(Self.fingerprint(fcm.serviceAccount))"
        }
        return result
    }

    /// The first 16 hex digits of the SHA-256 of `secret`.
    static func fingerprint(_ secret: String) -> String {
        SHA256.hash(data: Data(secret.utf8)).prefix(8).map { String(format: "%02x", $0) }.joined()
    }
}
