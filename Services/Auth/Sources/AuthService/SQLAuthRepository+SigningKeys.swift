import Foundation
import ServiceCore

extension SQLAuthRepository {
    public func signingKeys() async throws -> [SigningKeyRecord] {
        try await database.read(
            "SELECT kid, private_key_pem, x, y, created_at, retired_at FROM signing_keys ORDER BY created_at DESC, kid",
            []
        ).map { row in
            SigningKeyRecord(
                kid: try row.decode(0), privateKeyPEM: try row.decode(1), x: try row.decode(2), y: try row.decode(3),
                createdAt: try row.date(4), retiredAt: try row.optionalDate(5))
        }
    }

    public func activateSigningKey(_ key: SigningKeyRecord, at now: Date) async throws {
        try await database.transaction { transaction in
            _ = try await transaction.execute(
                "UPDATE signing_keys SET retired_at = ? WHERE retired_at IS NULL AND kid <> ?",
                [now.millisecondsSince1970, key.kid])
            _ = try await transaction.execute(
                """
                INSERT INTO signing_keys (kid, private_key_pem, x, y, created_at, retired_at) VALUES (?, ?, ?, ?, ?, NULL)
                ON CONFLICT (kid) DO UPDATE SET
                    retired_at = NULL, private_key_pem = COALESCE(signing_keys.private_key_pem, excluded.private_key_pem)
                """, [key.kid, key.privateKeyPEM, key.x, key.y, key.createdAt.millisecondsSince1970])
        }
    }
}
