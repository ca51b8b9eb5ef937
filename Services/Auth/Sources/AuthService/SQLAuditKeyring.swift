import Crypto
import Foundation
import ServiceCore

/// The audit keys auth keeps (`audit_user_key`, `audit_address_key`): every service's trail pseudonymises people
/// with them (auth's directly, the others through `auth.auditKeys`). A user's key is made when first asked for, and
/// only while the account exists; erasing the user deletes it.
public struct SQLAuditKeyring: AuditKeyring {
    /// How many days' address keys are kept: today's and yesterday's (for entries written around midnight).
    static let addressKeyDays = 2

    let database: any SQLDatabase
    let now: @Sendable () -> Date

    public init(database: any SQLDatabase, now: @escaping @Sendable () -> Date = Date.init) {
        self.database = database
        self.now = now
    }

    public func userKeys(_ userIDs: Set<String>) async throws -> [String: SymmetricKey] {
        guard !userIDs.isEmpty else { return [:] }
        let ids = Array(userIDs)
        let createdAt = now().millisecondsSince1970
        return try await database.transaction { transaction in
            var keys: [String: SymmetricKey] = [:]
            for start in stride(from: 0, to: ids.count, by: 500) {
                let slice = Array(ids[start..<min(start + 500, ids.count)])
                let list = Array(repeating: "?", count: slice.count).joined(separator: ", ")
                // A key for each named account that has none yet; erased and unknown users get none.
                for id in slice {
                    _ = try await transaction.execute(
                        """
                        INSERT INTO audit_user_key (user_id, key, created_at)
                        SELECT id, ?, ? FROM users WHERE id = ?
                        ON CONFLICT DO NOTHING
                        """, [SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }, createdAt, id])
                }
                for row in try await transaction.query(
                    "SELECT user_id, key FROM audit_user_key WHERE user_id IN (\(list))", slice)
                {
                    keys[try row.decode(0)] = SymmetricKey(data: try row.decode(1, as: Data.self))
                }
            }
            return keys
        }
    }

    public func addressKey(day: String) async throws -> SymmetricKey {
        if let row = try await database.readOne("SELECT key FROM audit_address_key WHERE day = ?", [day]) {
            return SymmetricKey(data: try row.decode(0, as: Data.self))
        }
        let oldest = AuditDay.of(now().addingTimeInterval(-86_400 * Double(Self.addressKeyDays - 1)))
        return try await database.transaction { transaction in
            _ = try await transaction.execute(
                "INSERT INTO audit_address_key (day, key) VALUES (?, ?) ON CONFLICT DO NOTHING",
                [day, SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }])
            // Rotated daily: older days' keys are gone, so their address pseudonyms link to nothing.
            _ = try await transaction.execute("DELETE FROM audit_address_key WHERE day < ?", [oldest])
            let row = try await transaction.query("SELECT key FROM audit_address_key WHERE day = ?", [day])
            return SymmetricKey(data: try row[0].decode(0, as: Data.self))
        }
    }
}
