import Crypto
import Foundation
import SharedModels

/// An app's provider credentials (the wire type of `apps.*`), as push-dispatch seals them (``AppCredentialSealer``).
public typealias AppCredentials = Apps.Credentials

extension Apps.Credentials {
    /// What `apps.get` and `securepush apps show` print instead of secrets: per platform, the public identifiers and
    /// the first 16 hex digits of the SHA-256 of the secret, so an operator can tell which key is in use without
    /// seeing it.
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
        if let wns {
            result["wns"] = "package \(wns.packageSid), sha256:\(Self.fingerprint(wns.secret))"
        }
        if let webPush {
            let key =
                (try? P256.Signing.PrivateKey(pemRepresentation: webPush.vapidPrivateKey))
                .map { $0.publicKey.x963Representation.base64URLEncodedString() } ?? "?"
            result["webpush"] =
                "vapid \(key), subject \(webPush.subject), sha256:\(Self.fingerprint(webPush.vapidPrivateKey))"
        }
        return result
    }

    /// The first 16 hex digits of the SHA-256 of `secret`.
    static func fingerprint(_ secret: String) -> String {
        SHA256.hash(data: Data(secret.utf8)).prefix(8).map { String(format: "%02x", $0) }.joined()
    }
}
