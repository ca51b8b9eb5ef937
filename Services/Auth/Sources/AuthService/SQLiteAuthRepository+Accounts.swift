import Foundation
import GRDB

extension SQLiteAuthRepository {
    public func insertUser(_ user: UserRecord) async throws {
        do {
            try await writer.write { db in
                try db.execute(
                    sql: "INSERT INTO users (id, username, password_hash, created_at) VALUES (?, ?, ?, ?)",
                    arguments: [user.id, user.username, user.passwordHash, user.createdAt]
                )
            }
        } catch  where Self.isUniqueViolation(error) {
            throw AuthError.usernameTaken
        }
    }

    public func user(named username: String) async throws -> UserRecord? {
        try await writer.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM users WHERE username = ?", arguments: [username]).map {
                UserRecord(
                    id: $0["id"], username: $0["username"], passwordHash: $0["password_hash"],
                    createdAt: $0["created_at"])
            }
        }
    }

    public func user(id: String) async throws -> UserRecord? {
        try await writer.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM users WHERE id = ?", arguments: [id]).map {
                UserRecord(
                    id: $0["id"], username: $0["username"], passwordHash: $0["password_hash"],
                    createdAt: $0["created_at"])
            }
        }
    }

    public func updatePasswordHash(userID: String, hash: String) async throws {
        try await writer.write { db in
            try db.execute(sql: "UPDATE users SET password_hash = ? WHERE id = ?", arguments: [hash, userID])
        }
    }

    public func client(id: String) async throws -> ClientRecord? {
        try await writer.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM clients WHERE id = ?", arguments: [id]).map { row in
                let scopes: String = row["scopes"]
                return ClientRecord(
                    id: row["id"],
                    secretHash: row["secret_hash"],
                    scopes: scopes.split(separator: " ").map(String.init),
                    createdAt: row["created_at"]
                )
            }
        }
    }

    public func insertClient(_ client: ClientRecord) async throws {
        do {
            try await writer.write { db in
                try db.execute(
                    sql: "INSERT INTO clients (id, secret_hash, scopes, created_at, updated_at) VALUES (?, ?, ?, ?, ?)",
                    arguments: [
                        client.id, client.secretHash, client.scopes.joined(separator: " "), client.createdAt,
                        client.createdAt,
                    ]
                )
            }
        } catch  where Self.isUniqueViolation(error) {
            throw AuthError.clientExists(client.id)
        }
    }

    public func upsertClient(_ client: ClientRecord) async throws {
        try await writer.write { db in
            try db.execute(
                sql: """
                    INSERT INTO clients (id, secret_hash, scopes, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT(id) DO UPDATE SET
                        secret_hash = excluded.secret_hash, scopes = excluded.scopes, updated_at = excluded.updated_at
                    """,
                arguments: [
                    client.id, client.secretHash, client.scopes.joined(separator: " "), client.createdAt,
                    client.createdAt,
                ]
            )
        }
    }
}
