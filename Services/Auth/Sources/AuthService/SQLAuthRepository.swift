import Foundation
import ServiceCore

/// ``AuthRepository`` written once over ``SQLDatabase``: SQLite for one process, PostgreSQL shared by every auth
/// replica. Times are stored as milliseconds since 1970 (``AuthMigrations``).
public struct SQLAuthRepository: AuthRepository {
    let database: any SQLDatabase

    /// Uses a database migrated with ``AuthMigrations/all``.
    public init(database: any SQLDatabase) {
        self.database = database
    }

    public func insertUser(_ user: UserRecord) async throws {
        // The id is fresh, so a conflict is the username's: no backend's error codes to tell apart.
        let inserted = try await database.execute(
            """
            INSERT INTO users (id, username, password_hash, created_at) VALUES (?, ?, ?, ?)
            ON CONFLICT DO NOTHING
            """, [user.id, user.username, user.passwordHash, user.createdAt.millisecondsSince1970])
        guard inserted == 1 else { throw AuthError.usernameTaken }
    }

    public func user(named username: String) async throws -> UserRecord? {
        try await database.readOne(
            "SELECT id, username, password_hash, created_at FROM users WHERE username = ?", [username]
        ).map(Self.user(_:))
    }

    public func user(id: String) async throws -> UserRecord? {
        try await database.readOne(
            "SELECT id, username, password_hash, created_at FROM users WHERE id = ?", [id]
        ).map(Self.user(_:))
    }

    public func users(ids: [String]) async throws -> [UserRecord] {
        guard !ids.isEmpty else { return [] }
        let list = String(decoding: try JSONEncoder().encode(ids), as: UTF8.self)
        return try await database.read(
            """
            SELECT id, username, password_hash, created_at FROM users
            WHERE id IN (\(database.dialect.jsonTextArray))
            """, [list]
        ).map(Self.user(_:))
    }

    public func updatePasswordHash(userID: String, hash: String) async throws {
        _ = try await database.execute("UPDATE users SET password_hash = ? WHERE id = ?", [hash, userID])
    }

    public func client(id: String) async throws -> ClientRecord? {
        try await database.readOne(
            "SELECT id, secret_hash, scopes, apps, created_at FROM clients WHERE id = ?", [id]
        ).map { row in
            ClientRecord(
                id: try row.decode(0),
                secretHash: try row.decode(1),
                scopes: try row.decode(2, as: String.self).split(separator: " ").map(String.init),
                apps: try row.decode(3, as: String?.self)?.split(separator: " ").map(String.init) ?? [],
                createdAt: try row.date(4)
            )
        }
    }

    public func insertClient(_ client: ClientRecord) async throws {
        let inserted = try await database.execute(
            """
            INSERT INTO clients (id, secret_hash, scopes, apps, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT DO NOTHING
            """, Self.binds(client))
        guard inserted == 1 else { throw AuthError.clientExists(client.id) }
    }

    public func upsertClient(_ client: ClientRecord) async throws {
        _ = try await database.execute(
            """
            INSERT INTO clients (id, secret_hash, scopes, apps, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT (id) DO UPDATE SET
                secret_hash = excluded.secret_hash, scopes = excluded.scopes, apps = excluded.apps,
                updated_at = excluded.updated_at
            """, Self.binds(client))
    }

    static func user(_ row: SQLRow) throws -> UserRecord {
        UserRecord(
            id: try row.decode(0), username: try row.decode(1), passwordHash: try row.decode(2),
            createdAt: try row.date(3))
    }

    static func binds(_ client: ClientRecord) -> [any SQLBindable] {
        // Space-separated, like the token's `scope` claim; no apps is `NULL`.
        let created = client.createdAt.millisecondsSince1970
        let apps: String? = client.apps.isEmpty ? nil : client.apps.joined(separator: " ")
        return [client.id, client.secretHash, client.scopes.joined(separator: " "), apps, created, created]
    }
}

extension SQLRow {
    /// Column `index`, milliseconds since 1970, as a date.
    func date(_ index: Int) throws -> Date {
        Date(millisecondsSince1970: try decode(index))
    }

    /// Column `index`, milliseconds since 1970 or `NULL`, as a date.
    func optionalDate(_ index: Int) throws -> Date? {
        try decode(index, as: Int64?.self).map(Date.init(millisecondsSince1970:))
    }
}
