import Foundation
import GRDB

extension SQLiteAuthRepository {
    public func startFamily(id familyID: String, userID: String, firstTokenHash: String, expiresAt: Date, at now: Date)
        async throws
    {
        try await writer.write { db in
            try db.execute(
                sql: "INSERT INTO token_families (id, user_id, created_at) VALUES (?, ?, ?)",
                arguments: [familyID, userID, now]
            )
            try db.execute(
                sql:
                    "INSERT INTO refresh_tokens (hash, family_id, user_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?)",
                arguments: [firstTokenHash, familyID, userID, now, expiresAt]
            )
        }
    }

    public func rotateRefreshToken(
        hash tokenHash: String, successorHash: String, successorExpiresAt: Date, at now: Date
    ) async throws
        -> RefreshRotation
    {
        // One write transaction: two concurrent refreshes with the same token cannot both succeed.
        try await writer.write { db in
            let sql = """
                SELECT t.family_id, t.user_id, t.expires_at, t.used_at, f.revoked_at
                FROM refresh_tokens t JOIN token_families f ON f.id = t.family_id
                WHERE t.hash = ?
                """
            guard let row = try Row.fetchOne(db, sql: sql, arguments: [tokenHash]) else { return .unknown }
            let familyID: String = row["family_id"]
            let userID: String = row["user_id"]
            let expiresAt: Date = row["expires_at"]
            let usedAt: Date? = row["used_at"]
            let revokedAt: Date? = row["revoked_at"]
            if revokedAt != nil { return .revoked }
            if usedAt != nil {
                try Self.revoke(familyID: familyID, at: now, in: db)
                return .reused(familyID: familyID)
            }
            if expiresAt <= now { return .expired }
            try db.execute(sql: "UPDATE refresh_tokens SET used_at = ? WHERE hash = ?", arguments: [now, tokenHash])
            try db.execute(
                sql:
                    "INSERT INTO refresh_tokens (hash, family_id, user_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?)",
                arguments: [successorHash, familyID, userID, now, successorExpiresAt]
            )
            return .rotated(userID: userID, familyID: familyID)
        }
    }

    public func revokeFamily(ofTokenHash tokenHash: String, at now: Date) async throws -> Bool {
        try await writer.write { db in
            guard
                let familyID = try String.fetchOne(
                    db, sql: "SELECT family_id FROM refresh_tokens WHERE hash = ?", arguments: [tokenHash])
            else { return false }
            try Self.revoke(familyID: familyID, at: now, in: db)
            return true
        }
    }

    public func revokedFamilies(since: Date) async throws -> [String] {
        try await writer.read { db in
            try String.fetchAll(
                db, sql: "SELECT id FROM token_families WHERE revoked_at >= ? ORDER BY revoked_at", arguments: [since])
        }
    }

    public func purgeRefreshTokens(expiredBefore now: Date) async throws -> Int {
        try await writer.write { db in
            // Spent tokens stay until they expire, so that a replayed one is still recognised (and revokes its family).
            try db.execute(sql: "DELETE FROM refresh_tokens WHERE expires_at <= ?", arguments: [now])
            let purged = db.changesCount
            try db.execute(
                sql:
                    "DELETE FROM token_families WHERE NOT EXISTS (SELECT 1 FROM refresh_tokens t WHERE t.family_id = token_families.id)"
            )
            return purged
        }
    }

    private static func revoke(familyID: String, at now: Date, in db: Database) throws {
        try db.execute(
            sql: "UPDATE token_families SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL",
            arguments: [now, familyID]
        )
    }
}
