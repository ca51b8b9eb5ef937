import Foundation
import ServiceCore

extension SQLAuthRepository {
    public func startFamily(id familyID: String, userID: String, firstTokenHash: String, expiresAt: Date, at now: Date)
        async throws
    {
        try await database.transaction { transaction in
            _ = try await transaction.execute(
                "INSERT INTO token_families (id, user_id, created_at) VALUES (?, ?, ?)",
                [familyID, userID, now.millisecondsSince1970])
            try await Self.insertToken(
                firstTokenHash, familyID: familyID, userID: userID, expiresAt: expiresAt, at: now, transaction)
        }
    }

    public func rotateRefreshToken(
        hash tokenHash: String, successorHash: String, successorExpiresAt: Date, at now: Date
    ) async throws -> RefreshRotation {
        // One transaction holding the token's and the family's rows: two refreshes with the same token (on any
        // replica) take turns, and the second sees the token spent.
        try await database.transaction { transaction in
            guard
                let row = try await transaction.query(
                    """
                    SELECT t.family_id, t.user_id, t.expires_at, t.used_at, f.revoked_at, f.created_at
                    FROM refresh_tokens t JOIN token_families f ON f.id = t.family_id
                    WHERE t.hash = ? \(transaction.dialect.lockRows)
                    """, [tokenHash]
                ).first
            else { return .unknown }
            let familyID: String = try row.decode(0)
            let userID: String = try row.decode(1)
            if try row.optionalDate(4) != nil { return .revoked }
            if try row.optionalDate(3) != nil {
                try await Self.revoke(familyID: familyID, at: now, transaction)
                return .reused(familyID: familyID)
            }
            if try row.date(2) <= now { return .expired }
            _ = try await transaction.execute(
                "UPDATE refresh_tokens SET used_at = ? WHERE hash = ?", [now.millisecondsSince1970, tokenHash])
            try await Self.insertToken(
                successorHash, familyID: familyID, userID: userID, expiresAt: successorExpiresAt, at: now, transaction)
            return .rotated(userID: userID, familyID: familyID, signedInAt: try row.date(5))
        }
    }

    public func revokeFamily(ofTokenHash tokenHash: String, at now: Date) async throws -> Bool {
        try await database.transaction { transaction in
            guard
                let row = try await transaction.query(
                    "SELECT family_id FROM refresh_tokens WHERE hash = ?", [tokenHash]
                ).first
            else { return false }
            try await Self.revoke(familyID: try row.decode(0), at: now, transaction)
            return true
        }
    }

    public func revokedFamilies(since: Date) async throws -> [String] {
        try await database.read(
            "SELECT id FROM token_families WHERE revoked_at >= ? ORDER BY revoked_at", [since.millisecondsSince1970]
        ).map { try $0.decode(0) }
    }

    public func purgeRefreshTokens(expiredBefore now: Date) async throws -> Int {
        // One replica at a time. Spent tokens stay until they expire, so that a replayed one is still recognised
        // (and revokes its family).
        let purged = try await database.exclusively("purge") { transaction in
            let count = try await transaction.execute(
                "DELETE FROM refresh_tokens WHERE expires_at <= ?", [now.millisecondsSince1970])
            _ = try await transaction.execute(
                """
                DELETE FROM token_families
                WHERE NOT EXISTS (SELECT 1 FROM refresh_tokens t WHERE t.family_id = token_families.id)
                """, [])
            return count
        }
        return purged ?? 0
    }

    public func purgeRevokedSessions(revokedBefore cutoff: Date) async throws -> Int {
        let purged = try await database.exclusively("purge-revoked-sessions") { transaction in
            let cutoff = cutoff.millisecondsSince1970
            _ = try await transaction.execute(
                "DELETE FROM refresh_tokens WHERE family_id IN (SELECT id FROM token_families WHERE revoked_at < ?)",
                [cutoff])
            return try await transaction.execute("DELETE FROM token_families WHERE revoked_at < ?", [cutoff])
        }
        return purged ?? 0
    }

    private static func insertToken(
        _ hash: String, familyID: String, userID: String, expiresAt: Date, at now: Date,
        _ transaction: any SQLTransaction
    ) async throws {
        _ = try await transaction.execute(
            "INSERT INTO refresh_tokens (hash, family_id, user_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?)",
            [hash, familyID, userID, now.millisecondsSince1970, expiresAt.millisecondsSince1970])
    }

    private static func revoke(familyID: String, at now: Date, _ transaction: any SQLTransaction) async throws {
        _ = try await transaction.execute(
            "UPDATE token_families SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL",
            [now.millisecondsSince1970, familyID])
    }
}
