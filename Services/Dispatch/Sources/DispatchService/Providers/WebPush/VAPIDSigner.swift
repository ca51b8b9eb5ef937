import Crypto
import Foundation
import ServiceCore
import SharedModels
import Synchronization

/// Makes RFC 8292 VAPID `Authorization` headers and reuses each push service origin's JWT until it nears expiry.
///
/// Push services only check that `exp` is at most 24 hours ahead, so one token per origin serves thousands of
/// messages; signing per message would waste CPU on a burst.
final class VAPIDSigner: Sendable {
    /// How long a new token is valid (RFC 8292 §2 allows at most 24 hours).
    static let lifetime: TimeInterval = 12 * 3600
    /// A cached token is replaced once less than this is left, so no request carries one about to expire.
    static let refreshMargin: TimeInterval = 3600
    /// Bounds the cache: subscriptions choose origins, so a flood of bogus ones must not grow memory without end.
    static let maxCachedOrigins = 1024

    /// The application server key browsers get as `applicationServerKey`: the uncompressed point, base64url.
    let publicKey: String
    private let privateKey: P256.Signing.PrivateKey
    private let subject: String
    private let now: @Sendable () -> Date
    private let cache = Mutex<[String: CachedHeader]>([:])

    private struct CachedHeader {
        var value: String
        var expiresAt: Date
    }

    init(privateKey: P256.Signing.PrivateKey, subject: String, now: @escaping @Sendable () -> Date) {
        self.privateKey = privateKey
        self.publicKey = privateKey.publicKey.x963Representation.base64URLEncodedString()
        self.subject = subject
        self.now = now
    }

    /// `vapid t=<JWT>, k=<public key>` for requests to `origin`.
    func authorization(origin: String) throws -> String {
        let now = now()
        if let cached = cache.withLock({ $0[origin] }), now < cached.expiresAt - Self.refreshMargin {
            return cached.value
        }
        let expiresAt = Date(timeIntervalSince1970: (now.timeIntervalSince1970 + Self.lifetime).rounded(.down))
        let value = "vapid t=\(try token(audience: origin, expiresAt: expiresAt)), k=\(publicKey)"
        cache.withLock { cache in
            if cache.count >= Self.maxCachedOrigins {
                cache = cache.filter { now < $0.value.expiresAt - Self.refreshMargin }
                if cache.count >= Self.maxCachedOrigins { cache.removeAll() }
            }
            cache[origin] = CachedHeader(value: value, expiresAt: expiresAt)
        }
        return value
    }

    /// Drops `origin`'s cached token, so the next request signs a new one (after a 401/403 from that service).
    func invalidate(origin: String) {
        _ = cache.withLock { $0.removeValue(forKey: origin) }
    }

    /// An ES256 JWT `{"aud","exp","sub"}` (RFC 7515 compact form; the signature is raw `r ‖ s`).
    private func token(audience: String, expiresAt: Date) throws -> String {
        let header = #"{"typ":"JWT","alg":"ES256"}"#
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let claims = try encoder.encode(
            Claims(aud: audience, exp: Int(expiresAt.timeIntervalSince1970), sub: subject))
        let signingInput = Data(header.utf8).base64URLEncodedString() + "." + Data(claims).base64URLEncodedString()
        let signature = try privateKey.signature(for: Data(signingInput.utf8))
        return signingInput + "." + Data(signature.rawRepresentation).base64URLEncodedString()
    }

    private struct Claims: Encodable {
        var aud: String
        var exp: Int
        var sub: String
    }
}
