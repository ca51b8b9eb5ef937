import Foundation
import Logging
import ServiceCore
import SharedModels

/// The auth domain: accounts, sign-in, refresh-token rotation, service clients and access tokens.
///
/// Knows nothing of HTTP or JSON-RPC; ``AuthMethods`` maps methods onto it.
public struct AuthenticationService: Sendable {
    /// The state of the service.
    public let repository: any AuthRepository
    /// Signs access tokens and publishes the keys that verify them.
    public let signer: AccessTokenSigner
    /// Service clients.
    public let clients: ClientRegistry
    /// Limits on guessing and on unauthenticated calls.
    public let limiter: SignInLimiter
    /// The bound on concurrent password work.
    public let hashing: PasswordHashingGate
    let hasher: PasswordHasher
    let selfRegistration: Bool
    let refreshTokenTTL: Int
    let logger: Logger
    /// Sign-ins, client tokens and refresh-token reuse.
    let metrics: AuthMetrics
    /// Where sign-ins, registrations, client tokens, refreshes and sign-outs are recorded; `nil` records nothing.
    let audit: AuditTrail?
    /// Erases users across the services (`users.delete`); `nil` where auth has no client of them.
    public internal(set) var erasure: UserErasure?
    /// How recent a user's password sign-in must be for them to erase their own account, seconds.
    var erasureSignInMaxAge: TimeInterval = TimeInterval(SettingCatalog.erasureSignInMaxAge.defaultValue)
    /// How long a revoked session is kept (`SECUREPUSH_RETAIN_REVOKED_SESSIONS`), seconds.
    var revokedSessionRetention = TimeInterval(SettingCatalog.retainRevokedSessions.defaultValue)
    /// Counts what the purge deletes by retention (`securepush_retention_purged_total`).
    var retentionMetrics = RetentionMetrics.disabled
    let now: @Sendable () -> Date

    /// - Parameters:
    ///   - selfRegistration: whether `auth.register` is open to anyone.
    ///   - refreshTokenTTL: seconds each refresh token lives.
    ///   - metrics: counts sign-ins, client tokens and refresh-token reuse.
    ///   - audit: the audit trail.
    ///   - now: the clock (tests move it).
    public init(
        repository: any AuthRepository,
        signer: AccessTokenSigner,
        clients: ClientRegistry,
        hasher: PasswordHasher,
        limiter: SignInLimiter,
        hashing: PasswordHashingGate,
        selfRegistration: Bool = true,
        refreshTokenTTL: Int,
        logger: Logger,
        metrics: AuthMetrics = .disabled,
        audit: AuditTrail? = nil,
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.repository = repository
        self.signer = signer
        self.clients = clients
        self.hasher = hasher
        self.limiter = limiter
        self.hashing = hashing
        self.selfRegistration = selfRegistration
        self.refreshTokenTTL = refreshTokenTTL
        self.logger = logger
        self.metrics = metrics
        self.audit = audit
        self.now = now
    }

    /// Creates an account (self-registration); returns the new user id (a random lowercase UUID).
    ///
    /// Throws `-32003` while self-registration is closed, `-32602` naming `username` or `password` when either breaks
    /// the rules, `-32009` when the name is taken.
    public func register(username: String, password: String, from address: String? = nil) async throws -> String {
        guard selfRegistration else {
            logger.security(
                .init("auth.register.refused"), metadata: [LogMetadataKey.clientAddress: "\(address ?? "in-process")"])
            audit?.record("auth.register.refused", ["address": .address(address), "reason": .text("closed")])
            throw AuthError.registrationClosed
        }
        let userID = try await AccountRegistry(repository: repository, hasher: hasher, now: now).createUser(
            username: username, password: password, hashing: { try await self.checkPassword(from: address, $0) })
        logger.debug("auth.register.succeeded", metadata: [LogMetadataKey.userID: "\(userID)"])
        audit?.record(
            "auth.register",
            ["user": .user(userID), "username": .username(username, owner: userID), "address": .address(address)])
        return userID
    }

    /// Signs a person in and starts a new refresh-token family.
    ///
    /// A wrong username and a wrong password both throw the same `-32001` after the same bcrypt work.
    /// The attempt is reserved with the limiter before any password work; refusals are `-32029` at once.
    public func login(username: String, password: String, from address: String? = nil) async throws
        -> Auth.TokenGrant
    {
        let attempt: SignInLimiter.Attempt
        do {
            attempt = try await limiter.reserveAttempt(.user, account: username, from: address, at: now())
        } catch {
            audit?.record(
                "auth.signin.refused",
                [
                    "username": .username(username, owner: nil), "address": .address(address),
                    "reason": .text("throttled"),
                ])
            throw error
        }
        let user: UserRecord?
        let matches: Bool
        do {
            user = try await repository.user(named: username)
            let hasher = hasher
            matches = try await checkPassword(from: address) { [user] in
                try await hasher.verify(password, against: user?.passwordHash)
            }
        } catch {
            await limiter.abandoned(attempt, at: now())
            throw error
        }
        guard matches, let user else {
            logger.debug("auth.login.failed")
            audit?.record(
                "auth.signin.failed",
                [
                    "username": .username(username, owner: user?.id), "address": .address(address),
                    "reason": .text(user == nil ? "unknownUser" : "wrongPassword"),
                ])
            throw AuthError.invalidCredentials
        }
        await limiter.succeeded(attempt, at: now())
        if hasher.needsRehash(user.passwordHash) {
            // Best effort: a busy queue only postpones the upgrade to the next sign-in.
            let hasher = hasher
            if let hash = try? await hashing.run(for: address, { try await hasher.hash(password) }) {
                try await repository.updatePasswordHash(userID: user.id, hash: hash)
            }
        }
        let refreshToken = OpaqueToken.generate()
        let issuedAt = now()
        let familyID = UUID.random().uuidString.lowercased()
        try await repository.startFamily(
            id: familyID,
            userID: user.id,
            firstTokenHash: OpaqueToken.storageHash(of: refreshToken),
            expiresAt: issuedAt.addingTimeInterval(TimeInterval(refreshTokenTTL)),
            at: issuedAt
        )
        logger.debug("auth.login.succeeded", metadata: [LogMetadataKey.userID: "\(user.id)"])
        audit?.record("auth.signin.succeeded", ["user": .user(user.id), "address": .address(address)])
        return try await grant(
            userID: user.id, refreshToken: refreshToken, sessionID: familyID, signedInAt: issuedAt, at: issuedAt)
    }

    /// A user grant: a fresh access token with scope `user` plus the given refresh token.
    /// A grant whose access token carries the session (refresh-token family) as `sid` and the time of the
    /// session's password sign-in as `auth_time`.
    func grant(userID: String, refreshToken: String, sessionID: String, signedInAt: Date, at issuedAt: Date)
        async throws -> Auth.TokenGrant
    {
        Auth.TokenGrant(
            userId: userID,
            accessToken: try await signer.sign(
                subject: userID, scopes: [Scope.user], sessionID: sessionID, authTime: signedInAt, at: issuedAt),
            refreshToken: refreshToken,
            tokenType: "Bearer",
            expiresIn: signer.tokenTTL
        )
    }
}
