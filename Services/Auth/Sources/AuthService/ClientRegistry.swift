import Foundation
import Logging
import SharedModels

/// Creates service clients and checks their credentials. Secrets are stored only as bcrypt hashes.
public struct ClientRegistry: Sendable {
    /// A client id with its secret in the clear: what an operator hands to the client, once.
    public struct Credentials: Sendable, Hashable {
        public var clientId: String
        public var secret: String
        public init(clientId: String, secret: String) {
            self.clientId = clientId
            self.secret = secret
        }
    }

    private let repository: any AuthRepository
    private let hasher: PasswordHasher
    private let minimumSecretLength: Int
    private let now: @Sendable () -> Date

    /// - Parameters:
    ///   - minimumSecretLength: shortest secret accepted from an operator (16 in production).
    ///   - now: the clock.
    public init(
        repository: any AuthRepository,
        hasher: PasswordHasher,
        minimumSecretLength: Int,
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.repository = repository
        self.hasher = hasher
        self.minimumSecretLength = minimumSecretLength
        self.now = now
    }

    /// Runs `body` with a registry on the auth database `configuration` names — PostgreSQL when it has a
    /// `postgresURL`, the SQLite file otherwise (see ``ConfiguredAuthRepository``) — to manage clients from the
    /// `securepush clients` CLI; needs no signing key.
    public static func with<T: Sendable>(
        configuration: AuthConfiguration, logger: Logger, _ body: (ClientRegistry) async throws -> T
    ) async throws -> T {
        let hasher = try await PasswordHasher(cost: configuration.bcryptCost)
        return try await ConfiguredAuthRepository.with(configuration, logger: logger) { repository in
            try await body(
                ClientRegistry(
                    repository: repository, hasher: hasher,
                    minimumSecretLength: configuration.minimumClientSecretLength))
        }
    }

    /// What a client's tokens carry: its scopes and the apps it may act for.
    public struct Grant: Sendable, Hashable {
        /// Never contains `user`.
        public var scopes: [String]
        /// Empty: the deployment's default app only.
        public var apps: [String]
        public init(scopes: [String], apps: [String] = []) {
            self.scopes = scopes
            self.apps = apps
        }
    }

    /// Creates a client with `scopes`, bound to `apps` (none: the default app); a strong random secret is generated
    /// when `secret` is `nil`.
    ///
    /// Throws `AuthError` (`-32602` naming the field) for a bad id, secret, scope — `user` is never allowed — or app
    /// id, and `-32009` when the id exists.
    public func createClient(id: String, scopes: [String], apps: [String] = [], secret: String?) async throws
        -> Credentials
    {
        let (record, credentials) = try await makeRecord(id: id, scopes: scopes, apps: apps, secret: secret)
        try await repository.insertClient(record)
        return credentials
    }

    /// Creates the client, or replaces the secret, scopes and apps of an existing one (start-up provisioning).
    public func createOrUpdateClient(id: String, scopes: [String], apps: [String] = [], secret: String) async throws {
        let (record, _) = try await makeRecord(id: id, scopes: scopes, apps: apps, secret: secret)
        try await repository.upsertClient(record)
    }

    /// The client's scopes when `secret` is right; `nil` otherwise, after the same amount of work either way.
    public func authenticate(clientId: String, secret: String) async throws -> [String]? {
        try await grant(clientId: clientId, secret: secret)?.scopes
    }

    /// The client's scopes and apps when `secret` is right; `nil` otherwise, after the same amount of work either way.
    public func grant(clientId: String, secret: String) async throws -> Grant? {
        let client = try await repository.client(id: clientId)
        let matches = try await hasher.verify(secret, against: client?.secretHash)
        guard matches, let client else { return nil }
        // Defence in depth: a row edited by hand must still never yield a user token. Its apps are passed on as
        // stored: dropping a malformed one could leave none, which would widen the client to the default app.
        return Grant(scopes: client.scopes.filter { $0 != Scope.user }, apps: client.apps)
    }

    private func makeRecord(id: String, scopes: [String], apps: [String], secret: String?) async throws -> (
        ClientRecord, Credentials
    ) {
        try CredentialRules.validateClientID(id)
        let normalizedScopes = try CredentialRules.normalizeClientScopes(scopes)
        let normalizedApps = try CredentialRules.normalizeClientApps(apps)
        let secret = secret ?? OpaqueToken.generate()
        try CredentialRules.validateClientSecret(secret, minimumLength: minimumSecretLength)
        let record = ClientRecord(
            id: id, secretHash: try await hasher.hash(secret), scopes: normalizedScopes, apps: normalizedApps,
            createdAt: now())
        return (record, Credentials(clientId: id, secret: secret))
    }
}
