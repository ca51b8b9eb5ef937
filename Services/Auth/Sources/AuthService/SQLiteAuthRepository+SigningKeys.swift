import Foundation
import GRDB

extension SQLiteAuthRepository {
    public func signingKeys() async throws -> [SigningKeyRecord] {
        try await writer.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM signing_keys ORDER BY created_at DESC, kid").map { row in
                SigningKeyRecord(
                    kid: row["kid"],
                    privateKeyPEM: row["private_key_pem"],
                    x: row["x"],
                    y: row["y"],
                    createdAt: row["created_at"],
                    retiredAt: row["retired_at"]
                )
            }
        }
    }

    public func activateSigningKey(_ key: SigningKeyRecord, at now: Date) async throws {
        try await writer.write { db in
            try db.execute(
                sql: "UPDATE signing_keys SET retired_at = ? WHERE retired_at IS NULL AND kid <> ?",
                arguments: [now, key.kid]
            )
            try db.execute(
                sql: """
                    INSERT INTO signing_keys (kid, private_key_pem, x, y, created_at, retired_at) VALUES (?, ?, ?, ?, ?, NULL)
                    ON CONFLICT(kid) DO UPDATE SET
                        retired_at = NULL, private_key_pem = COALESCE(signing_keys.private_key_pem, excluded.private_key_pem)
                    """,
                arguments: [key.kid, key.privateKeyPEM, key.x, key.y, key.createdAt]
            )
        }
    }
}
