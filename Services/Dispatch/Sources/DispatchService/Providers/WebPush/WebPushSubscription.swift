import Crypto
import Foundation
import ServiceCore
import SharedModels

/// A browser's push subscription (`PushSubscription.toJSON()`): where to POST, and the keys to encrypt for.
///
/// It is the device token of a `webpush` device. Parsing checks everything a delivery relies on, so a bad
/// subscription is refused at `devices.register` (error naming `token`) instead of failing every delivery.
struct WebPushSubscription: Sendable {
    /// The push service URL the browser was given; always `https`.
    let endpoint: URL
    /// `endpoint` exactly as the browser gave it.
    let endpointString: String
    /// `scheme://host[:port]` of `endpoint`: the VAPID `aud` claim.
    let origin: String
    /// The endpoint's host, lowercased, without brackets.
    let host: String
    /// The user agent's ECDH public key (`keys.p256dh`).
    let userAgentPublicKey: P256.KeyAgreement.PublicKey
    /// The user agent's authentication secret (`keys.auth`), 16 bytes.
    let authSecret: Data

    /// The form stored as the device token: `{"endpoint":…,"keys":{"auth":…,"p256dh":…}}`, sorted keys, unpadded
    /// base64url, other members (like `expirationTime`) dropped, so one subscription always stores the same string.
    var canonicalToken: String {
        let json = WireForm(
            endpoint: endpointString,
            keys: .init(
                p256dh: userAgentPublicKey.x963Representation.base64URLEncodedString(),
                auth: authSecret.base64URLEncodedString()))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Strings only: encoding cannot fail.
        return (try? encoder.encode(json)).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    /// Parses and checks a subscription; every error names `token` and says what is wrong.
    init(token: String?) throws(DispatchError) {
        guard let token else {
            throw .invalidField("token", "is required for webpush: the browser's PushSubscription JSON")
        }
        let json: WireForm
        do {
            json = try JSONDecoder().decode(WireForm.self, from: Data(token.utf8))
        } catch DecodingError.keyNotFound(let key, let context) {
            let path = (context.codingPath + [key]).map(\.stringValue).joined(separator: ".")
            throw .invalidField("token", "subscription JSON has no '\(path)'")
        } catch DecodingError.typeMismatch(_, let context) where !context.codingPath.isEmpty {
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            throw .invalidField("token", "subscription JSON member '\(path)' has the wrong type")
        } catch {
            throw .invalidField(
                "token", "must be the browser's PushSubscription JSON {\"endpoint\",\"keys\":{\"p256dh\",\"auth\"}}")
        }

        let endpoint = try Self.parseEndpoint(json.endpoint)
        self.endpoint = endpoint.url
        self.endpointString = json.endpoint
        self.origin = endpoint.origin
        self.host = endpoint.host

        guard let p256dh = Data(base64URLEncoded: json.keys.p256dh) else {
            throw .invalidField("token", "keys.p256dh is not base64url")
        }
        guard p256dh.count == 65, p256dh.first == 0x04 else {
            throw .invalidField(
                "token", "keys.p256dh must be an uncompressed P-256 point (65 bytes), got \(p256dh.count) bytes")
        }
        guard let publicKey = try? P256.KeyAgreement.PublicKey(x963Representation: p256dh) else {
            throw .invalidField("token", "keys.p256dh is not a point on the P-256 curve")
        }
        self.userAgentPublicKey = publicKey

        guard let auth = Data(base64URLEncoded: json.keys.auth) else {
            throw .invalidField("token", "keys.auth is not base64url")
        }
        guard auth.count == 16 else {
            throw .invalidField("token", "keys.auth must be 16 bytes, got \(auth.count)")
        }
        self.authSecret = auth
    }

    private static func parseEndpoint(_ text: String) throws(DispatchError) -> (url: URL, origin: String, host: String)
    {
        guard let components = URLComponents(string: text), let url = components.url else {
            throw .invalidField("token", "endpoint is not a URL")
        }
        guard components.scheme?.lowercased() == "https" else {
            throw .invalidField("token", "endpoint must be an https URL")
        }
        guard var host = components.host?.lowercased(), !host.isEmpty else {
            throw .invalidField("token", "endpoint has no host")
        }
        guard components.user == nil, components.password == nil else {
            throw .invalidField("token", "endpoint must not contain credentials")
        }
        guard components.fragment == nil else {
            throw .invalidField("token", "endpoint must not have a fragment")
        }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let authority = host.contains(":") ? "[\(host)]" : host
        let port = components.port.flatMap { $0 == 443 ? nil : ":\($0)" } ?? ""
        return (url, "https://\(authority)\(port)", host)
    }

    /// The JSON members we read and write.
    private struct WireForm: Codable {
        struct Keys: Codable {
            var p256dh: String
            var auth: String
        }
        var endpoint: String
        var keys: Keys
    }
}
