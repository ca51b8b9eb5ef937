import Foundation
import JWTKit
import Logging
import SharedModels

/// Verifies access tokens locally with auth's public keys (no call to auth per request).
///
/// Keys are fetched at start, cached, and fetched again when a token names an unknown `kid`
/// (at most once per `refetchInterval`, so forged kids cannot hammer auth). Tokens that verified are remembered
/// until they expire (``VerifiedTokenCache``), so the common case — the same device or backend calling again —
/// skips the signature check and never waits for the actor.
public actor AccessTokenVerifier {
    /// Fetches the current JWKS, usually `auth.keys` over RPC.
    public typealias KeyFetcher = @Sendable () async throws -> [Auth.PublicJWK]

    private let fetchKeys: KeyFetcher
    private let logger: Logger
    private let refetchInterval: Duration
    private let clock = ContinuousClock()
    private var keys = JWTKeyCollection()
    private var knownKeyIDs: Set<String> = []
    private var lastFetch: ContinuousClock.Instant?
    private var lastFetchError: String? = "keys not fetched yet"
    private var inFlight: Task<Bool, Never>?
    private nonisolated let verified: VerifiedTokenCache
    private nonisolated let now: @Sendable () -> Date

    /// - Parameters:
    ///   - refetchInterval: least time between two key fetches caused by unknown key ids.
    ///   - cacheCapacity: most verified tokens remembered (0 verifies every presentation).
    ///   - now: the clock tokens' expiry is judged by.
    public init(
        refetchInterval: Duration = .seconds(10),
        cacheCapacity: Int = 4096,
        now: @escaping @Sendable () -> Date = { Date() },
        logger: Logger,
        fetchKeys: @escaping KeyFetcher
    ) {
        self.fetchKeys = fetchKeys
        self.logger = logger
        self.refetchInterval = refetchInterval
        self.verified = VerifiedTokenCache(capacity: cacheCapacity)
        self.now = now
    }

    /// How many verified tokens are remembered (for tests and diagnostics).
    public nonisolated var cachedTokenCount: Int { verified.count }

    /// `"ok"` once keys are loaded, otherwise why not (for `GET /health`).
    public var readiness: String {
        knownKeyIDs.isEmpty ? (lastFetchError ?? "no keys") : "ok"
    }

    /// Fetches the keys now (or joins a fetch already under way); returns whether it worked.
    @discardableResult
    public func refresh() async -> Bool {
        if let inFlight { return await inFlight.value }
        lastFetch = clock.now
        let task = Task { await self.load() }
        inFlight = task
        defer { inFlight = nil }
        return await task.value
    }

    private func load() async -> Bool {
        do {
            let jwks = try await fetchKeys()
            let collection = JWTKeyCollection()
            for jwk in jwks where jwk.kty == "EC" && jwk.crv == "P-256" {
                let key = try ES256PublicKey(parameters: (x: jwk.x, y: jwk.y))
                await collection.add(ecdsa: key, kid: JWKIdentifier(string: jwk.kid))
            }
            keys = collection
            knownKeyIDs = Set(jwks.map(\.kid))
            verified.retain(keyIDs: knownKeyIDs)
            lastFetchError = nil
            logger.debug("auth.keys.loaded", metadata: ["auth.keys.count": "\(jwks.count)"])
            return true
        } catch {
            // The detail (URLs, socket errors) goes to the log only; health bodies may be seen by outsiders.
            lastFetchError = "auth keys unavailable"
            logger.warning("auth.keys.fetch_failed", metadata: ["error": "\(error)"])
            return false
        }
    }

    /// Verifies `token` and returns who it belongs to; throws `-32001` for anything wrong with it,
    /// and `-32050` when no keys could ever be loaded from auth.
    public nonisolated func verify(_ token: String?) async throws(RPCError) -> Principal {
        guard let token, !token.isEmpty else { throw RPCError.unauthenticated("missing bearer token") }
        if let principal = verified.principal(for: token, now: now()) { return principal }
        return try await verifyUncached(token)
    }

    /// The principal of `token` when it verified before and has not expired, without suspending; `nil` otherwise
    /// (a missing, new or bad token: ``verify(_:)`` decides about it).
    public nonisolated func cachedPrincipal(for token: String?) -> Principal? {
        guard let token, !token.isEmpty else { return nil }
        return verified.principal(for: token, now: now())
    }

    private func verifyUncached(_ token: String) async throws(RPCError) -> Principal {
        guard let kid = Self.keyID(of: token) else { throw RPCError.unauthenticated("malformed token") }
        if !knownKeyIDs.contains(kid) {
            // Without any keys yet, retry at most once a second; with keys, at most once per refetch interval,
            // so neither a down auth nor forged key ids turn every request into a call to auth.
            let interval = knownKeyIDs.isEmpty ? min(.seconds(1), refetchInterval) : refetchInterval
            let due = lastFetch.map { clock.now - $0 >= interval } ?? true
            if due || inFlight != nil { await refresh() }
            if knownKeyIDs.isEmpty { throw RPCError.unavailable("auth", "signing keys could not be loaded") }
            guard knownKeyIDs.contains(kid) else { throw RPCError.unauthenticated("unknown signing key") }
        }
        let claims: AccessTokenClaims
        do {
            claims = try await keys.verify(token, as: AccessTokenClaims.self)
        } catch let error as JWTError where error.errorType == .claimVerificationFailure {
            throw RPCError.unauthenticated("token expired or not valid here")
        } catch {
            throw RPCError.unauthenticated("invalid token")
        }
        // jwt-kit judged `exp` by the system clock; the cache judges it by `now`, so this must too.
        guard now() < claims.exp.value else { throw RPCError.unauthenticated("token expired or not valid here") }
        let principal = Principal(
            subject: claims.sub.value, scopes: claims.scopes, expiresAt: claims.exp.value, sessionID: claims.sid,
            apps: claims.apps ?? [],
            authTime: claims.authTime.map { Date(timeIntervalSince1970: TimeInterval($0)) })
        verified.insert(token, .init(principal: principal, expiresAt: claims.exp.value, keyID: kid), now: now())
        return principal
    }

    /// Reads the `kid` from a JWT header without trusting anything else in it.
    static func keyID(of token: String) -> String? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let header = Data(base64URLEncoded: String(parts[0])) else { return nil }
        struct Header: Decodable {
            var kid: String?
            var alg: String?
        }
        guard let decoded = try? JSONDecoder().decode(Header.self, from: header), decoded.alg == "ES256" else {
            return nil
        }
        return decoded.kid
    }
}
