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

        /// WNS credentials: the app's package security identifier (its client id) and secret.
        public struct WNS: Codable, Sendable, Hashable {
            /// The package SID, `ms-app://S-1-15-2-…`.
            public var packageSid: String
            /// The client secret.
            public var secret: String

            public init(packageSid: String, secret: String) {
                self.packageSid = packageSid
                self.secret = secret
            }
        }

        /// Web Push (VAPID) credentials.
        public struct WebPush: Codable, Sendable, Hashable {
            /// The VAPID P-256 private key, PEM (its public key is what `devices.webPushKey` publishes for the app).
            public var vapidPrivateKey: String
            /// A `mailto:` or `https:` contact for push services.
            public var subject: String
            /// The push services' hosts subscriptions may name (subdomains included); unset:
            /// `SECUREPUSH_WEBPUSH_ALLOWED_HOSTS` (production requires one of the two).
            public var allowedHosts: [String]?

            public init(vapidPrivateKey: String, subject: String, allowedHosts: [String]? = nil) {
                self.vapidPrivateKey = vapidPrivateKey
                self.subject = subject
                self.allowedHosts = allowedHosts
            }
        }

        public var apns: APNs?
        public var fcm: FCM?
        public var wns: WNS?
        public var webPush: WebPush?

        public init(apns: APNs? = nil, fcm: FCM? = nil, wns: WNS? = nil, webPush: WebPush? = nil) {
            self.apns = apns
            self.fcm = fcm
            self.wns = wns
            self.webPush = webPush
        }

        /// The remote platforms these credentials configure.
        public var platforms: [Platform] {
            (apns == nil ? [] : [.apns]) + (fcm == nil ? [] : [.fcm]) + (wns == nil ? [] : [.wns])
                + (webPush == nil ? [] : [.webpush])
        }

        /// `self` with the credentials of each platform `other` configures replacing this one's.
        public func merging(_ other: Credentials) -> Credentials {
            Credentials(
                apns: other.apns ?? apns, fcm: other.fcm ?? fcm, wns: other.wns ?? wns,
                webPush: other.webPush ?? webPush)
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

extension Apps.Credentials.WNS: CustomStringConvertible, CustomDebugStringConvertible {
    /// The package SID only, never the secret.
    public var description: String { "WNS(package \(packageSid); secret redacted)" }
    public var debugDescription: String { description }
}

extension Apps.Credentials.WebPush: CustomStringConvertible, CustomDebugStringConvertible {
    /// The subject only, never the key.
    public var description: String { "WebPush(subject \(subject); key redacted)" }
    public var debugDescription: String { description }
}

extension Apps.Credentials.FCM: CustomStringConvertible, CustomDebugStringConvertible {
    /// Never the service account.
    public var description: String { "FCM(service account redacted)" }
    public var debugDescription: String { description }
}
