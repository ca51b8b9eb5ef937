import AuthService
import Foundation
import ServiceCore
import TestSupport
import Testing

/// The auth repository contract, run against every backend: SQLite always, PostgreSQL when configured.
@Suite("Auth repository on SQLite and PostgreSQL")
struct AuthRepositoryTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    func withRepository(_ backend: TestDatabaseBackend, _ body: (any AuthRepository) async throws -> Void)
        async throws
    {
        switch backend {
        case .sqlite:
            try await body(
                SQLAuthRepository(database: try ServiceDatabase.sqlite(path: nil, migrations: AuthMigrations.all).sql))
        case .postgres:
            try await TestPostgres.withDatabase(serviceName: "auth", migrations: AuthMigrations.all.postgres) {
                try await body(SQLAuthRepository(database: PostgresSQLDatabase($0)))
            }
        }
    }

    @Test(
        "usernames and client ids are unique; users are found by name and by id; upsert replaces a client's secret and scopes",
        arguments: TestPostgres.backends)
    func usersAndClients(backend: TestDatabaseBackend) async throws {
        try await withRepository(backend) { repository in
            try await repository.insertUser(.init(id: "u1", username: "ada", passwordHash: "h1", createdAt: Self.start))
            await #expect(throws: AuthError.usernameTaken) {
                try await repository.insertUser(
                    .init(id: "u2", username: "ada", passwordHash: "h2", createdAt: Self.start))
            }
            try await repository.updatePasswordHash(userID: "u1", hash: "h3")
            #expect(
                try await repository.user(named: "ada")
                    == .init(id: "u1", username: "ada", passwordHash: "h3", createdAt: Self.start))
            #expect(try await repository.user(named: "eve") == nil)
            #expect(try await repository.user(id: "u1")?.username == "ada")
            #expect(try await repository.user(id: "u2") == nil)

            try await repository.insertClient(
                .init(id: "billing", secretHash: "s1", scopes: ["push:send"], createdAt: Self.start))
            await #expect(throws: AuthError.self) {
                try await repository.insertClient(
                    .init(id: "billing", secretHash: "s2", scopes: [], createdAt: Self.start))
            }
            try await repository.upsertClient(
                .init(id: "billing", secretHash: "s3", scopes: ["push:send", "store:write"], createdAt: Self.start))
            let client = try await repository.client(id: "billing")
            #expect(client?.secretHash == "s3")
            #expect(client?.scopes == ["push:send", "store:write"])
        }
    }

    @Test(
        "a refresh token rotates once; its reuse revokes the family; expiry and purge", arguments: TestPostgres.backends
    )
    func refreshTokens(backend: TestDatabaseBackend) async throws {
        try await withRepository(backend) { repository in
            try await repository.insertUser(.init(id: "u1", username: "ada", passwordHash: "h", createdAt: Self.start))
            let expires = Self.start.addingTimeInterval(60)
            try await repository.startFamily(
                id: "f1", userID: "u1", firstTokenHash: "t1", expiresAt: expires, at: Self.start)
            #expect(
                try await repository.rotateRefreshToken(
                    hash: "t1", successorHash: "t2", successorExpiresAt: expires, at: Self.start)
                    == .rotated(userID: "u1", familyID: "f1", signedInAt: Self.start))
            #expect(
                try await repository.rotateRefreshToken(
                    hash: "t1", successorHash: "t3", successorExpiresAt: expires, at: Self.start)
                    == .reused(familyID: "f1"))
            #expect(
                try await repository.rotateRefreshToken(
                    hash: "t2", successorHash: "t4", successorExpiresAt: expires, at: Self.start) == .revoked)
            #expect(
                try await repository.rotateRefreshToken(
                    hash: "nope", successorHash: "t5", successorExpiresAt: expires, at: Self.start) == .unknown)

            try await repository.startFamily(
                id: "f2", userID: "u1", firstTokenHash: "t6", expiresAt: expires, at: Self.start)
            #expect(
                try await repository.rotateRefreshToken(
                    hash: "t6", successorHash: "t7", successorExpiresAt: expires, at: expires) == .expired)
            #expect(try await repository.revokeFamily(ofTokenHash: "t6", at: Self.start))
            #expect(try await repository.revokeFamily(ofTokenHash: "nope", at: Self.start) == false)
            #expect(try await repository.purgeRefreshTokens(expiredBefore: expires) == 3)
            #expect(
                try await repository.rotateRefreshToken(
                    hash: "t6", successorHash: "t8", successorExpiresAt: expires, at: Self.start) == .unknown)
        }
    }

    @Test(
        "activating a signing key retires the others, and a known key keeps its private half",
        arguments: TestPostgres.backends)
    func signingKeys(backend: TestDatabaseBackend) async throws {
        try await withRepository(backend) { repository in
            let first = SigningKeyRecord(kid: "k1", privateKeyPEM: "pem1", x: "x1", y: "y1", createdAt: Self.start)
            try await repository.activateSigningKey(first, at: Self.start)
            let later = Self.start.addingTimeInterval(10)
            let second = SigningKeyRecord(kid: "k2", privateKeyPEM: nil, x: "x2", y: "y2", createdAt: later)
            try await repository.activateSigningKey(second, at: later)
            var keys = try await repository.signingKeys()
            #expect(keys.map(\.kid) == ["k2", "k1"])
            #expect(keys.first { $0.kid == "k1" }?.retiredAt == later)
            #expect(keys.first { $0.kid == "k2" }?.retiredAt == nil)

            // k1 again (e.g. a rollback to the old key file) without its PEM: reactivated, PEM kept.
            try await repository.activateSigningKey(
                .init(kid: "k1", privateKeyPEM: nil, x: "x1", y: "y1", createdAt: Self.start), at: later)
            keys = try await repository.signingKeys()
            #expect(keys.first { $0.kid == "k1" }?.privateKeyPEM == "pem1")
            #expect(keys.first { $0.kid == "k1" }?.retiredAt == nil)
            #expect(keys.first { $0.kid == "k2" }?.retiredAt == later)
        }
    }

    @Test(
        "on PostgreSQL, two replicas refreshing the same token at once: one rotates, the other sees reuse",
        .enabled(if: TestPostgres.isConfigured, Comment(rawValue: TestPostgres.skipNotice)))
    func concurrentRefresh() async throws {
        try await TestPostgres.withTwoReplicas(serviceName: "auth", migrations: AuthMigrations.all.postgres) {
            first, second in
            let replicas = [
                SQLAuthRepository(database: PostgresSQLDatabase(first)),
                SQLAuthRepository(database: PostgresSQLDatabase(second)),
            ]
            try await replicas[0].insertUser(
                .init(id: "u1", username: "ada", passwordHash: "h", createdAt: Self.start))
            let expires = Self.start.addingTimeInterval(60)
            for round in 0..<20 {
                try await replicas[0].startFamily(
                    id: "f\(round)", userID: "u1", firstTokenHash: "t\(round)", expiresAt: expires, at: Self.start)
                let outcomes = try await withThrowingTaskGroup(of: RefreshRotation.self) { group in
                    for replica in replicas {
                        group.addTask {
                            try await replica.rotateRefreshToken(
                                hash: "t\(round)", successorHash: "t\(round)-\(UUID().uuidString)",
                                successorExpiresAt: expires, at: Self.start)
                        }
                    }
                    return try await group.reduce(into: [RefreshRotation]()) { $0.append($1) }
                }
                #expect(
                    outcomes.filter { $0 == .rotated(userID: "u1", familyID: "f\(round)", signedInAt: Self.start) }
                        .count == 1)
                #expect(outcomes.filter { $0 == .reused(familyID: "f\(round)") }.count == 1)
            }
        }
    }
}
