import Foundation

/// Where auth keeps users, clients, refresh tokens and signing keys.
///
/// Secrets never reach the repository in the clear: passwords and client secrets arrive as bcrypt hashes,
/// refresh tokens as SHA-256 hashes.
public protocol AuthRepository: Sendable {
    /// Stores a new user; throws `AuthError.usernameTaken` when the username exists.
    func insertUser(_ user: UserRecord) async throws
    /// The user with this username, if any.
    func user(named username: String) async throws -> UserRecord?
    /// The user with this id, if any.
    func user(id: String) async throws -> UserRecord?
    /// The users with these ids (any order; ids with no user are absent), in one read.
    func users(ids: [String]) async throws -> [UserRecord]
    /// Replaces a user's password hash (after a bcrypt cost change).
    func updatePasswordHash(userID: String, hash: String) async throws

    /// The client with this id, if any.
    func client(id: String) async throws -> ClientRecord?
    /// Stores a new client; throws `AuthError.clientExists` when the id is taken.
    func insertClient(_ client: ClientRecord) async throws
    /// Creates the client or replaces its secret hash, scopes and apps (keeping its creation date).
    func upsertClient(_ client: ClientRecord) async throws

    /// Starts a token family for `userID` with its first refresh token.
    func startFamily(id familyID: String, userID: String, firstTokenHash: String, expiresAt: Date, at now: Date)
        async throws
    /// Spends the refresh token with hash `tokenHash` and, when it was valid, stores its successor in the same family,
    /// atomically. Presenting a spent token revokes its family.
    func rotateRefreshToken(hash tokenHash: String, successorHash: String, successorExpiresAt: Date, at now: Date)
        async throws
        -> RefreshRotation
    /// Revokes the family the token belongs to; `false` when the token is unknown.
    func revokeFamily(ofTokenHash tokenHash: String, at now: Date) async throws -> Bool

    /// The ids of the families revoked at or after `since` (logout or reuse), for `auth.revokedSessions`.
    func revokedFamilies(since: Date) async throws -> [String]
    /// Deletes refresh tokens that expired before `now`, and families left without tokens; returns how many tokens went.
    func purgeRefreshTokens(expiredBefore now: Date) async throws -> Int

    /// Deletes sessions (token families, with their refresh tokens) revoked before `cutoff`; returns how many.
    func purgeRevokedSessions(revokedBefore cutoff: Date) async throws -> Int

    /// Every signing key ever activated, newest first.
    func signingKeys() async throws -> [SigningKeyRecord]
    /// Makes `key` the current signing key: stores it when new, clears its retirement, and retires every other current key at `now`.
    func activateSigningKey(_ key: SigningKeyRecord, at now: Date) async throws
}

/// A person who signs in.
public struct UserRecord: Sendable, Hashable {
    public var id: String
    public var username: String
    public var passwordHash: String
    public var createdAt: Date

    public init(id: String, username: String, passwordHash: String, createdAt: Date) {
        self.id = id
        self.username = username
        self.passwordHash = passwordHash
        self.createdAt = createdAt
    }
}

/// A service client (an app backend, push-dispatch) that gets tokens with `auth.clientToken`.
public struct ClientRecord: Sendable, Hashable {
    public var id: String
    public var secretHash: String
    /// Never contains `user`.
    public var scopes: [String]
    /// The app ids its tokens may act for (the `apps` claim); empty: the deployment's default app only.
    public var apps: [String]
    public var createdAt: Date

    public init(id: String, secretHash: String, scopes: [String], apps: [String] = [], createdAt: Date) {
        self.id = id
        self.secretHash = secretHash
        self.scopes = scopes
        self.apps = apps
        self.createdAt = createdAt
    }
}

/// A key that signs (or signed) access tokens.
public struct SigningKeyRecord: Sendable, Hashable {
    public var kid: String
    /// The PEM of a generated key; `nil` for a key loaded from a file (its secret stays in the file).
    public var privateKeyPEM: String?
    /// Base64url public coordinates, so retired keys can still be published while their tokens live.
    public var x: String
    public var y: String
    public var createdAt: Date
    /// When another key replaced it; `nil` for the current key.
    public var retiredAt: Date?

    public init(kid: String, privateKeyPEM: String?, x: String, y: String, createdAt: Date, retiredAt: Date? = nil) {
        self.kid = kid
        self.privateKeyPEM = privateKeyPEM
        self.x = x
        self.y = y
        self.createdAt = createdAt
        self.retiredAt = retiredAt
    }
}

/// What happened when a refresh token was presented.
public enum RefreshRotation: Sendable, Hashable {
    /// The token was valid; it is now spent and its successor is stored in the same family (the session), which
    /// began with a password sign-in at `signedInAt` (the `auth_time` of every token of the session).
    case rotated(userID: String, familyID: String, signedInAt: Date)
    /// No such token (never issued, or purged).
    case unknown
    /// The token's lifetime is over.
    case expired
    /// The token's family had been revoked (logout or earlier reuse).
    case revoked
    /// The token had already been spent: its family is revoked now.
    case reused(familyID: String)
}
