import Foundation
import ServiceCore
import SharedModels

extension AuthenticationService {
    /// Longest refresh token accepted; ours are 43 characters, anything far longer is not worth hashing.
    static let maximumRefreshTokenLength = 512

    /// Spends `refreshToken` and returns a new grant with its successor.
    ///
    /// Unknown, expired, spent or revoked tokens throw `-32001`; presenting a spent token also revokes its family,
    /// so a stolen token that was already used by its owner (or the other way round) ends the session for both.
    public func refresh(refreshToken: String, from address: String? = nil) async throws -> Auth.TokenGrant {
        try Self.requireNonEmpty(refreshToken)
        guard refreshToken.utf8.count <= Self.maximumRefreshTokenLength else { throw AuthError.invalidRefreshToken }
        let successor = OpaqueToken.generate()
        let issuedAt = now()
        let outcome = try await repository.rotateRefreshToken(
            hash: OpaqueToken.storageHash(of: refreshToken),
            successorHash: OpaqueToken.storageHash(of: successor),
            successorExpiresAt: issuedAt.addingTimeInterval(TimeInterval(refreshTokenTTL)),
            at: issuedAt
        )
        switch outcome {
        case .rotated(let userID, let familyID, let signedInAt):
            audit?.record("auth.refresh", ["user": .user(userID), "address": .address(address)])
            return try await grant(
                userID: userID, refreshToken: successor, sessionID: familyID, signedInAt: signedInAt, at: issuedAt)
        case .reused(let familyID):
            metrics.refreshReuse.increment()
            logger.security(.init("auth.refresh.reuse_detected"), metadata: ["auth.family_id": "\(familyID)"])
            audit?.record("auth.refresh.reuse_detected", ["address": .address(address)])
            throw AuthError.invalidRefreshToken
        case .unknown, .expired, .revoked:
            logger.debug("auth.refresh.refused", metadata: ["auth.reason": "\(outcome)"])
            audit?.record("auth.refresh.refused", ["reason": .text("\(outcome)"), "address": .address(address)])
            throw AuthError.invalidRefreshToken
        }
    }

    /// Revokes the family of `refreshToken` (signs the session out everywhere it was refreshed).
    ///
    /// An unknown token succeeds too, so logout cannot be used to test whether a token exists.
    public func logout(refreshToken: String, from address: String? = nil) async throws {
        try Self.requireNonEmpty(refreshToken)
        guard refreshToken.utf8.count <= Self.maximumRefreshTokenLength else { return }
        let revoked = try await repository.revokeFamily(
            ofTokenHash: OpaqueToken.storageHash(of: refreshToken), at: now())
        audit?.record("auth.signout", ["revoked": .flag(revoked), "address": .address(address)])
    }

    /// The sessions revoked at or after `since` (clamped to one access-token lifetime ago: older revocations can
    /// only concern expired access tokens), for a backend service holding `sessions:read` (``AuthMethods`` checks).
    public func revokedSessions(since: Date?) async throws -> Auth.RevokedSessions.Result {
        let current = now()
        let asOf = Date(timeIntervalSince1970: current.timeIntervalSince1970.rounded(.down))
        let horizon = asOf.addingTimeInterval(-TimeInterval(signer.tokenTTL))
        let families = try await repository.revokedFamilies(since: max(since ?? horizon, horizon))
        return Auth.RevokedSessions.Result(sessionIds: Array(Set(families)).sorted(), asOf: asOf)
    }

    /// Deletes expired refresh tokens and empty families, and sessions revoked longer than
    /// `SECUREPUSH_RETAIN_REVOKED_SESSIONS` ago; returns how many tokens expired.
    @discardableResult
    public func purgeExpiredTokens() async throws -> Int {
        let expired = try await repository.purgeRefreshTokens(expiredBefore: now())
        retentionMetrics.purged(
            "revokedSessions",
            try await repository.purgeRevokedSessions(
                revokedBefore: now().addingTimeInterval(-revokedSessionRetention)))
        return expired
    }

    private static func requireNonEmpty(_ refreshToken: String) throws(AuthError) {
        guard !refreshToken.isEmpty else { throw .invalidField("refreshToken", "must not be empty") }
    }
}
