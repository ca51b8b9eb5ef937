import Foundation
import PostgresNIO
import ServiceCore

/// `AuthRepository` on PostgreSQL, shared by every auth replica: users, clients, refresh-token families and the
/// signing keys every replica signs and publishes with.
public struct PostgresAuthRepository: AuthRepository {
    let database: PostgresServiceDatabase

    public init(database: PostgresServiceDatabase) {
        self.database = database
    }

    var logger: Logger { database.logger }

    public func insertUser(_ user: UserRecord) async throws {
        do {
            try await database.withClient { client in
                try await client.query(
                    """
                    INSERT INTO users (id, username, password_hash, created_at)
                    VALUES (\(user.id), \(user.username), \(user.passwordHash), \(user.createdAt))
                    """, logger: logger)
            }
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
            throw AuthError.usernameTaken
        }
    }

    public func user(named username: String) async throws -> UserRecord? {
        try await database.withClient { client in
            let rows = try await client.query(
                "SELECT id, username, password_hash, created_at FROM users WHERE username = \(username)",
                logger: logger)
            for try await (id, name, hash, created) in rows.decode((String, String, String, Date).self) {
                return UserRecord(id: id, username: name, passwordHash: hash, createdAt: created)
            }
            return nil
        }
    }

    public func user(id: String) async throws -> UserRecord? {
        try await database.withClient { client in
            let rows = try await client.query(
                "SELECT id, username, password_hash, created_at FROM users WHERE id = \(id)", logger: logger)
            for try await (id, name, hash, created) in rows.decode((String, String, String, Date).self) {
                return UserRecord(id: id, username: name, passwordHash: hash, createdAt: created)
            }
            return nil
        }
    }

    public func updatePasswordHash(userID: String, hash: String) async throws {
        try await database.withClient { client in
            try await client.query("UPDATE users SET password_hash = \(hash) WHERE id = \(userID)", logger: logger)
        }
    }

    public func client(id: String) async throws -> ClientRecord? {
        try await database.withClient { client in
            let rows = try await client.query(
                "SELECT id, secret_hash, scopes, created_at FROM clients WHERE id = \(id)", logger: logger)
            for try await (id, hash, scopes, created) in rows.decode((String, String, String, Date).self) {
                return ClientRecord(
                    id: id, secretHash: hash, scopes: scopes.split(separator: " ").map(String.init), createdAt: created)
            }
            return nil
        }
    }

    public func insertClient(_ client: ClientRecord) async throws {
        let scopes = client.scopes.joined(separator: " ")
        do {
            try await database.withClient { connection in
                try await connection.query(
                    """
                    INSERT INTO clients (id, secret_hash, scopes, created_at, updated_at)
                    VALUES (\(client.id), \(client.secretHash), \(scopes), \(client.createdAt), \(client.createdAt))
                    """, logger: logger)
            }
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
            throw AuthError.clientExists(client.id)
        }
    }

    public func upsertClient(_ client: ClientRecord) async throws {
        let scopes = client.scopes.joined(separator: " ")
        try await database.withClient { connection in
            try await connection.query(
                """
                INSERT INTO clients (id, secret_hash, scopes, created_at, updated_at)
                VALUES (\(client.id), \(client.secretHash), \(scopes), \(client.createdAt), \(client.createdAt))
                ON CONFLICT (id) DO UPDATE SET
                    secret_hash = excluded.secret_hash, scopes = excluded.scopes, updated_at = excluded.updated_at
                """, logger: logger)
        }
    }

    public func startFamily(id familyID: String, userID: String, firstTokenHash: String, expiresAt: Date, at now: Date)
        async throws
    {
        try await database.transaction { connection in
            try await connection.query(
                "INSERT INTO token_families (id, user_id, created_at) VALUES (\(familyID), \(userID), \(now))",
                logger: logger)
            try await connection.query(
                """
                INSERT INTO refresh_tokens (hash, family_id, user_id, created_at, expires_at)
                VALUES (\(firstTokenHash), \(familyID), \(userID), \(now), \(expiresAt))
                """, logger: logger)
        }
    }

    public func rotateRefreshToken(
        hash tokenHash: String, successorHash: String, successorExpiresAt: Date, at now: Date
    )
        async throws -> RefreshRotation
    {
        // The row lock makes two replicas refreshing the same token at once take turns: the second sees it used.
        try await database.transaction { connection in
            let rows = try await connection.query(
                """
                SELECT t.family_id, t.user_id, t.expires_at, t.used_at, f.revoked_at
                FROM refresh_tokens t JOIN token_families f ON f.id = t.family_id
                WHERE t.hash = \(tokenHash) FOR UPDATE OF t, f
                """, logger: logger)
            var found: (String, String, Date, Date?, Date?)?
            for try await row in rows.decode((String, String, Date, Date?, Date?).self) { found = row }
            guard let (familyID, userID, expiresAt, usedAt, revokedAt) = found else { return .unknown }
            if revokedAt != nil { return .revoked }
            if usedAt != nil {
                try await Self.revoke(familyID: familyID, at: now, connection, logger: logger)
                return .reused(familyID: familyID)
            }
            if expiresAt <= now { return .expired }
            try await connection.query(
                "UPDATE refresh_tokens SET used_at = \(now) WHERE hash = \(tokenHash)", logger: logger)
            try await connection.query(
                """
                INSERT INTO refresh_tokens (hash, family_id, user_id, created_at, expires_at)
                VALUES (\(successorHash), \(familyID), \(userID), \(now), \(successorExpiresAt))
                """, logger: logger)
            return .rotated(userID: userID, familyID: familyID)
        }
    }

    public func revokeFamily(ofTokenHash tokenHash: String, at now: Date) async throws -> Bool {
        try await database.transaction { connection in
            var familyID: String?
            for try await id in try await connection.query(
                "SELECT family_id FROM refresh_tokens WHERE hash = \(tokenHash)", logger: logger
            ).decode(String.self) {
                familyID = id
            }
            guard let familyID else { return false }
            try await Self.revoke(familyID: familyID, at: now, connection, logger: logger)
            return true
        }
    }

    public func revokedFamilies(since: Date) async throws -> [String] {
        try await database.withClient { client in
            var ids: [String] = []
            for try await id in try await client.query(
                "SELECT id FROM token_families WHERE revoked_at >= \(since) ORDER BY revoked_at", logger: logger
            ).decode(String.self) {
                ids.append(id)
            }
            return ids
        }
    }

    public func purgeRefreshTokens(expiredBefore now: Date) async throws -> Int {
        let purged = try await database.exclusively("purge") { connection in
            var count = 0
            for try await value in try await connection.query(
                "WITH gone AS (DELETE FROM refresh_tokens WHERE expires_at <= \(now) RETURNING 1) SELECT count(*) FROM gone",
                logger: logger
            ).decode(Int64.self) {
                count = Int(value)
            }
            try await connection.query(
                """
                DELETE FROM token_families f
                WHERE NOT EXISTS (SELECT 1 FROM refresh_tokens t WHERE t.family_id = f.id)
                """, logger: logger)
            return count
        }
        return purged ?? 0
    }

    public func signingKeys() async throws -> [SigningKeyRecord] {
        try await database.withClient { client in
            let rows = try await client.query(
                "SELECT kid, private_key_pem, x, y, created_at, retired_at FROM signing_keys ORDER BY created_at DESC, kid",
                logger: logger)
            var keys: [SigningKeyRecord] = []
            for try await (kid, pem, x, y, created, retired) in rows.decode(
                (String, String?, String, String, Date, Date?).self)
            {
                keys.append(
                    SigningKeyRecord(kid: kid, privateKeyPEM: pem, x: x, y: y, createdAt: created, retiredAt: retired))
            }
            return keys
        }
    }

    public func activateSigningKey(_ key: SigningKeyRecord, at now: Date) async throws {
        try await database.transaction { connection in
            try await connection.query(
                "UPDATE signing_keys SET retired_at = \(now) WHERE retired_at IS NULL AND kid <> \(key.kid)",
                logger: logger)
            try await connection.query(
                """
                INSERT INTO signing_keys (kid, private_key_pem, x, y, created_at, retired_at)
                VALUES (\(key.kid), \(key.privateKeyPEM), \(key.x), \(key.y), \(key.createdAt), NULL)
                ON CONFLICT (kid) DO UPDATE SET
                    retired_at = NULL,
                    private_key_pem = COALESCE(signing_keys.private_key_pem, excluded.private_key_pem)
                """, logger: logger)
        }
    }

    private static func revoke(familyID: String, at now: Date, _ connection: PostgresConnection, logger: Logger)
        async throws
    {
        try await connection.query(
            "UPDATE token_families SET revoked_at = \(now) WHERE id = \(familyID) AND revoked_at IS NULL",
            logger: logger)
    }
}
