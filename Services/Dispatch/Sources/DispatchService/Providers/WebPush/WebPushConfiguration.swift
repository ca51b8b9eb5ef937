import Crypto
import Foundation
import ServiceCore
import SharedModels

/// How push-dispatch sends Web Push messages: the VAPID identity, the `Urgency` to ask for, and whom to trust.
public struct WebPushConfiguration: Sendable {
    /// The VAPID signing key (P-256); its public key is the `applicationServerKey` browsers subscribe with.
    public var vapidPrivateKey: P256.Signing.PrivateKey
    /// The VAPID `sub` claim: a `mailto:` or `https:` contact for the push service's operators.
    public var vapidSubject: String
    /// The `Urgency` header of every message.
    public var urgency: WebPushUrgency
    /// A PEM file of CA certificates to trust instead of the system store (a private or test push service).
    public var caFile: String?
    /// When set, only endpoints on these hosts or their subdomains are accepted (e.g. `push.services.mozilla.com`),
    /// so a subscription cannot point push-dispatch at an arbitrary host. `nil` accepts any https host.
    public var allowedHosts: [String]?
    /// How long one delivery request may take, connection included.
    public var requestTimeout: Duration

    public init(
        vapidPrivateKey: P256.Signing.PrivateKey,
        vapidSubject: String,
        urgency: WebPushUrgency = .high,
        caFile: String? = nil,
        allowedHosts: [String]? = nil,
        requestTimeout: Duration = .seconds(30)
    ) {
        self.vapidPrivateKey = vapidPrivateKey
        self.vapidSubject = vapidSubject
        self.urgency = urgency
        self.caFile = caFile
        self.allowedHosts = allowedHosts
        self.requestTimeout = requestTimeout
    }

    /// The VAPID public key as browsers need it for `applicationServerKey`: the uncompressed point, base64url.
    public var applicationServerKey: String {
        vapidPrivateKey.publicKey.x963Representation.base64URLEncodedString()
    }

    /// Reads the configuration; `nil` when Web Push is not configured (neither VAPID variable set).
    ///
    /// `SECUREPUSH_VAPID_PRIVATE_KEY_FILE` (PEM P-256 key, SEC1 or PKCS#8) and `SECUREPUSH_VAPID_SUBJECT`
    /// (`mailto:…` or `https:…`) are required together; `SECUREPUSH_WEBPUSH_URGENCY` (`very-low`, `low`, `normal`,
    /// `high`; default `high`), `SECUREPUSH_WEBPUSH_CA_FILE` and `SECUREPUSH_WEBPUSH_ALLOWED_HOSTS` (comma-separated)
    /// are optional. Throws `ConfigurationError` naming the variable that is missing or wrong.
    public static func fromEnvironment(_ environment: ServiceEnvironment) throws -> WebPushConfiguration? {
        let keyFile = environment.string("SECUREPUSH_VAPID_PRIVATE_KEY_FILE")
        let subject = environment.string("SECUREPUSH_VAPID_SUBJECT")
        if keyFile == nil, subject == nil { return nil }
        guard let keyFile else {
            throw ConfigurationError(
                "SECUREPUSH_VAPID_PRIVATE_KEY_FILE must be set with SECUREPUSH_VAPID_SUBJECT: a PEM P-256 key "
                    + "(e.g. `openssl ecparam -name prime256v1 -genkey -noout -out vapid.pem`)")
        }
        guard let subject else {
            throw ConfigurationError(
                "SECUREPUSH_VAPID_SUBJECT must be set with SECUREPUSH_VAPID_PRIVATE_KEY_FILE: a mailto: or https: "
                    + "contact push services can reach")
        }
        try validateSubject(subject, variable: "SECUREPUSH_VAPID_SUBJECT")
        let pem: String
        do {
            pem = try String(contentsOfFile: keyFile, encoding: .utf8)
        } catch {
            throw ConfigurationError("SECUREPUSH_VAPID_PRIVATE_KEY_FILE: cannot read '\(keyFile)'")
        }
        let key: P256.Signing.PrivateKey
        do {
            key = try P256.Signing.PrivateKey(pemRepresentation: pem)
        } catch {
            throw ConfigurationError(
                "SECUREPUSH_VAPID_PRIVATE_KEY_FILE: '\(keyFile)' is not a PEM P-256 private key")
        }
        let urgency = try environment.choice(SettingCatalog.webPushUrgency, as: WebPushUrgency.self)
        let caFile = environment.string("SECUREPUSH_WEBPUSH_CA_FILE")
        if let caFile, !FileManager.default.isReadableFile(atPath: caFile) {
            throw ConfigurationError("SECUREPUSH_WEBPUSH_CA_FILE: cannot read '\(caFile)'")
        }
        let allowedHosts = environment.string("SECUREPUSH_WEBPUSH_ALLOWED_HOSTS").map { list in
            list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
                .filter { !$0.isEmpty }
        }
        if let allowedHosts, allowedHosts.isEmpty {
            throw ConfigurationError("SECUREPUSH_WEBPUSH_ALLOWED_HOSTS must list at least one host when set")
        }
        if allowedHosts == nil, environment.isProduction {
            throw ConfigurationError(
                "SECUREPUSH_WEBPUSH_ALLOWED_HOSTS must be set in production when Web Push is on: list the browsers' "
                    + "push services (e.g. fcm.googleapis.com,updates.push.services.mozilla.com,"
                    + "web.push.apple.com,notify.windows.com), so a subscription cannot send push-dispatch elsewhere")
        }
        return WebPushConfiguration(
            vapidPrivateKey: key, vapidSubject: subject, urgency: urgency, caFile: caFile, allowedHosts: allowedHosts)
    }

    /// The configuration of an app's Web Push credentials (issue 27): its allowed hosts, else
    /// `SECUREPUSH_WEBPUSH_ALLOWED_HOSTS` (production requires one of the two); urgency and CA file are the
    /// deployment's.
    public static func forApp(_ credentials: AppCredentials.WebPush, environment: ServiceEnvironment) throws
        -> WebPushConfiguration
    {
        try validateSubject(credentials.subject, variable: "webPush.subject")
        let key: P256.Signing.PrivateKey
        do {
            key = try P256.Signing.PrivateKey(pemRepresentation: credentials.vapidPrivateKey)
        } catch {
            throw ConfigurationError("webPush.vapidPrivateKey is not a PEM P-256 private key")
        }
        let allowedHosts =
            credentials.allowedHosts.map { $0.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } }
            ?? environment.string("SECUREPUSH_WEBPUSH_ALLOWED_HOSTS").map { list in
                list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            }
        if let allowedHosts, allowedHosts.isEmpty || allowedHosts.contains(where: \.isEmpty) {
            throw ConfigurationError("webPush.allowedHosts must list at least one host, none empty")
        }
        if allowedHosts == nil, environment.isProduction {
            throw ConfigurationError(
                "webPush.allowedHosts (or SECUREPUSH_WEBPUSH_ALLOWED_HOSTS) must be set in production: list the "
                    + "browsers' push services, so a subscription cannot send push-dispatch elsewhere")
        }
        let caFile = environment.string("SECUREPUSH_WEBPUSH_CA_FILE")
        if let caFile, !FileManager.default.isReadableFile(atPath: caFile) {
            throw ConfigurationError("SECUREPUSH_WEBPUSH_CA_FILE: cannot read '\(caFile)'")
        }
        return WebPushConfiguration(
            vapidPrivateKey: key, vapidSubject: credentials.subject,
            urgency: try environment.choice(SettingCatalog.webPushUrgency, as: WebPushUrgency.self), caFile: caFile,
            allowedHosts: allowedHosts)
    }

    /// RFC 8292 §2.1: the contact must be a `mailto:` or `https:` URI.
    static func validateSubject(_ subject: String, variable: String) throws {
        let lowered = subject.lowercased()
        guard
            (lowered.hasPrefix("mailto:") && subject.count > 7) || (lowered.hasPrefix("https://") && subject.count > 8)
        else {
            throw ConfigurationError("\(variable) must be a mailto: or https: URI, got '\(subject)'")
        }
    }

    /// Whether `host` is one of `allowedHosts` or a subdomain of one (always true without a list).
    func allows(host: String) -> Bool {
        guard allowedHosts != nil else { return true }
        return isListed(host: host)
    }

    /// Whether the operator named `host` (or a parent domain) in `allowedHosts`: only then may an endpoint resolve to
    /// a loopback, private or link-local address.
    func isListed(host: String) -> Bool {
        allowedHosts?.contains { host == $0 || host.hasSuffix("." + $0) } ?? false
    }
}
