import Foundation
import Logging

/// Creates people's accounts: behind `auth.register` while self-registration is open, and for operators
/// (`securepush users create`) always.
public struct AccountRegistry: Sendable {
    let repository: any AuthRepository
    let hasher: PasswordHasher
    let now: @Sendable () -> Date

    public init(repository: any AuthRepository, hasher: PasswordHasher, now: @escaping @Sendable () -> Date = Date.init)
    {
        self.repository = repository
        self.hasher = hasher
        self.now = now
    }

    /// Runs `body` with a registry on the auth database `configuration` names — PostgreSQL when it has a
    /// `postgresURL`, the SQLite file otherwise (see ``ConfiguredAuthRepository``): the `securepush users` CLI.
    public static func with<T: Sendable>(
        configuration: AuthConfiguration, logger: Logger, _ body: (AccountRegistry) async throws -> T
    ) async throws -> T {
        let hasher = try await PasswordHasher(cost: configuration.bcryptCost)
        return try await ConfiguredAuthRepository.with(configuration, logger: logger) { repository in
            try await body(AccountRegistry(repository: repository, hasher: hasher))
        }
    }

    /// Creates an account; returns the new user id (a random lowercase UUID).
    ///
    /// Throws `-32602` naming `username` or `password` when either breaks the rules, `-32009` when the name is taken.
    /// - Parameter hashing: runs the bcrypt work (the service passes its bounded queue).
    public func createUser(
        username: String,
        password: String,
        hashing: @Sendable (@Sendable () async throws -> String) async throws -> String = { try await $0() }
    ) async throws -> String {
        try CredentialRules.validateUsername(username)
        try CredentialRules.validatePassword(password)
        // Checked first so a taken name costs no bcrypt; the unique index still decides races.
        if try await repository.user(named: username) != nil { throw AuthError.usernameTaken }
        let hasher = hasher
        let user = UserRecord(
            id: UUID.random().uuidString.lowercased(),
            username: username,
            passwordHash: try await hashing { try await hasher.hash(password) },
            createdAt: now()
        )
        try await repository.insertUser(user)
        return user.id
    }
}
