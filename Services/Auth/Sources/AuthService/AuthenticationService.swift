import Foundation
import Logging
import SharedModels

/// The auth domain: accounts, sign-in, refresh-token rotation, service clients and access tokens.
///
/// Knows nothing of HTTP or JSON-RPC; `makeDispatcher()` maps methods onto it.
public struct AuthenticationService: Sendable {
    /// The state of the service.
    public let repository: any AuthRepository
    /// Signs access tokens and publishes the keys that verify them.
    public let signer: AccessTokenSigner
    /// Service clients.
    public let clients: ClientRegistry
    let hasher: PasswordHasher
    let throttle: LoginThrottle
    let refreshTokenTTL: Int
    let logger: Logger
    let now: @Sendable () -> Date

    /// - Parameters:
    ///   - refreshTokenTTL: seconds each refresh token lives.
    ///   - now: the clock (tests move it).
    public init(
        repository: any AuthRepository,
        signer: AccessTokenSigner,
        clients: ClientRegistry,
        hasher: PasswordHasher,
        throttle: LoginThrottle,
        refreshTokenTTL: Int,
        logger: Logger,
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.repository = repository
        self.signer = signer
        self.clients = clients
        self.hasher = hasher
        self.throttle = throttle
        self.refreshTokenTTL = refreshTokenTTL
        self.logger = logger
        self.now = now
    }

    /// Creates an account; returns the new user id (a random lowercase UUID).
    ///
    /// Throws `-32602` naming `username` or `password` when either breaks the rules, `-32009` when the name is taken.
    public func register(username: String, password: String) async throws -> String {
        try CredentialRules.validateUsername(username)
        try CredentialRules.validatePassword(password)
        // Checked first so a taken name costs no bcrypt; the unique index still decides races.
        if try await repository.user(named: username) != nil { throw AuthError.usernameTaken }
        let user = UserRecord(
            id: UUID().uuidString.lowercased(),
            username: username,
            passwordHash: try await hasher.hash(password),
            createdAt: now()
        )
        try await repository.insertUser(user)
        logger.debug("auth.register.succeeded", metadata: ["auth.user_id": "\(user.id)"])
        return user.id
    }

    /// Signs a person in and starts a new refresh-token family.
    ///
    /// A wrong username and a wrong password both throw the same `-32001` after the same bcrypt work.
    public func login(username: String, password: String) async throws -> Auth.TokenGrant {
        // Hashed: throttle memory stays bounded however long the names sent are.
        let throttleKey = OpaqueToken.storageHash(of: "user:" + username)
        try await throttle.check(throttleKey, at: now())
        let user = try await repository.user(named: username)
        guard try await hasher.verify(password, against: user?.passwordHash), let user else {
            await throttle.recordFailure(throttleKey, at: now())
            logger.debug("auth.login.failed")
            throw AuthError.invalidCredentials
        }
        await throttle.reset(throttleKey)
        if hasher.needsRehash(user.passwordHash) {
            try await repository.updatePasswordHash(userID: user.id, hash: try await hasher.hash(password))
        }
        let refreshToken = OpaqueToken.generate()
        let issuedAt = now()
        let familyID = UUID().uuidString.lowercased()
        try await repository.startFamily(
            id: familyID,
            userID: user.id,
            firstTokenHash: OpaqueToken.storageHash(of: refreshToken),
            expiresAt: issuedAt.addingTimeInterval(TimeInterval(refreshTokenTTL)),
            at: issuedAt
        )
        logger.debug("auth.login.succeeded", metadata: ["auth.user_id": "\(user.id)"])
        return try await grant(userID: user.id, refreshToken: refreshToken, sessionID: familyID, at: issuedAt)
    }

    /// A user grant: a fresh access token with scope `user` plus the given refresh token.
    /// A grant whose access token carries the session (refresh-token family) as `sid`.
    func grant(userID: String, refreshToken: String, sessionID: String, at issuedAt: Date) async throws
        -> Auth.TokenGrant
    {
        Auth.TokenGrant(
            userId: userID,
            accessToken: try await signer.sign(
                subject: userID, scopes: [Scope.user], sessionID: sessionID, at: issuedAt),
            refreshToken: refreshToken,
            tokenType: "Bearer",
            expiresIn: signer.tokenTTL
        )
    }
}
