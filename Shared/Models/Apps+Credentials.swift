import Foundation

extension Apps {
    /// An app's provider credentials (`apps.create`, `apps.rotateCredentials`, `securepush apps create`): kept
    /// encrypted by push-dispatch and never returned; `apps.get` shows fingerprints instead.
    ///
    /// Connection settings (endpoint overrides, CA files, timeouts) stay the deployment's: `SECUREPUSH_APNS_URL`,
    /// `SECUREPUSH_FCM_URL`… apply to every app.
    public struct Credentials: Codable, Sendable, Hashable {
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
    }
}

extension Apps.Credentials: CustomStringConvertible, CustomDebugStringConvertible {
    /// The platforms only: credentials never reach a log line by interpolation.
    public var description: String { "Credentials(\(platforms.map(\.rawValue).joined(separator: ", ")); redacted)" }
    public var debugDescription: String { description }
}

extension Apps.Credentials.APNs: CustomStringConvertible, CustomDebugStringConvertible {
    /// The public identifiers only, never the key.
    public var description: String { "APNs(team \(teamId), key \(keyId), topic \(topic); key redacted)" }
    public var debugDescription: String { description }
}

extension Apps.Credentials.FCM: CustomStringConvertible, CustomDebugStringConvertible {
    /// Never the service account.
    public var description: String { "FCM(service account redacted)" }
    public var debugDescription: String { description }
}
