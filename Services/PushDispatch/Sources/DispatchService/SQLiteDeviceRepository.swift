import Foundation
import GRDB
import ServiceCore
import SharedModels

/// `DeviceRepository` on SQLite (GRDB). Every change runs in one write transaction, so concurrent registrations
/// of the same token cannot both insert (and the unique index would refuse it anyway).
public struct SQLiteDeviceRepository: DeviceRepository {
    let database: any DatabaseWriter

    public init(database: any DatabaseWriter) {
        self.database = database
    }

    public func register(
        ownerID: String, platform: Platform, token: String?, name: String?, apnsMode: String?, publicKey: String?,
        maxDevices: Int?, now: Date
    ) async throws -> DeviceRegistration {
        let nowMS = now.millisecondsSince1970
        // One write transaction at a time on SQLite: the quota count and the insert cannot interleave.
        return try await database.write { db in
            if let token,
                var existing = try Row.fetchOne(
                    try db.cachedStatement(sql: "SELECT * FROM device WHERE platform = ? AND token = ?"),
                    arguments: [platform.rawValue, token]
                ).map(Self.device(from:))
            {
                let previousOwnerID = existing.ownerID
                let changesHands = previousOwnerID != ownerID
                if changesHands { try Self.checkQuota(maxDevices, ownerID: ownerID, db) }
                if changesHands {
                    // Ids queued for the previous owner must not reach the next one.
                    try db.cachedStatement(
                        sql: """
                            UPDATE delivery SET status = 'failed', last_error = 'device re-registered by another user',
                                updated_at = ?, lease_until = NULL, lease_owner = NULL
                            WHERE device_id = ? AND \(SQLiteDeliveryRepository.expirable)
                            """
                    ).execute(arguments: [nowMS, existing.id])
                }
                existing.ownerID = ownerID
                existing.name = changesHands ? name : (name ?? existing.name)
                existing.lastRegisteredAt = Date(millisecondsSince1970: nowMS)
                existing.isActive = true
                // The latest registration says how the app wants to be woken; unset means the deployment's mode.
                existing.apnsMode = apnsMode
                existing.publicKey = publicKey
                try db.cachedStatement(
                    sql: """
                        UPDATE device SET owner_id = ?, name = ?, last_registered_at = ?, active = 1, deactivated_at = NULL,
                            apns_mode = ?, public_key = ?
                        WHERE id = ?
                        """
                ).execute(arguments: [ownerID, existing.name, nowMS, apnsMode, publicKey, existing.id])
                return DeviceRegistration(device: existing, previousOwnerID: changesHands ? previousOwnerID : nil)
            }
            try Self.checkQuota(maxDevices, ownerID: ownerID, db)
            let device = DeviceRecord(
                id: UUID().uuidString.lowercased(), ownerID: ownerID, platform: platform, token: token, name: name,
                createdAt: Date(millisecondsSince1970: nowMS), lastRegisteredAt: Date(millisecondsSince1970: nowMS),
                isActive: true, apnsMode: apnsMode, publicKey: publicKey
            )
            try db.cachedStatement(
                sql: """
                    INSERT INTO device (
                        id, owner_id, platform, token, name, created_at, last_registered_at, active, apns_mode,
                        public_key)
                    VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?, ?)
                    """
            ).execute(arguments: [
                device.id, ownerID, platform.rawValue, token, name, nowMS, nowMS, apnsMode, publicKey,
            ])
            return DeviceRegistration(device: device)
        }
    }

    /// Throws `quotaExceeded` when `ownerID` already has `maxDevices` devices (active or not: each is a row).
    private static func checkQuota(_ maxDevices: Int?, ownerID: String, _ db: Database) throws {
        guard let maxDevices else { return }
        let count =
            try Int.fetchOne(
                try db.cachedStatement(sql: "SELECT COUNT(*) FROM device WHERE owner_id = ?"), arguments: [ownerID])
            ?? 0
        if count >= maxDevices { throw DispatchError.quotaExceeded(.devicesPerUser, limit: maxDevices) }
    }

    public func devices(ownerID: String) async throws -> [DeviceRecord] {
        try await database.read { db in
            try Row.fetchAll(
                try db.cachedStatement(sql: "SELECT * FROM device WHERE owner_id = ? ORDER BY created_at, rowid"),
                arguments: [ownerID]
            ).map(Self.device(from:))
        }
    }

    public func device(id: String) async throws -> DeviceRecord? {
        try await database.read { db in
            try Row.fetchOne(try db.cachedStatement(sql: "SELECT * FROM device WHERE id = ?"), arguments: [id]).map(
                Self.device(from:))
        }
    }

    public func unregister(id: String, ownerID: String, now: Date) async throws -> Bool {
        try await database.write { db in
            try db.cachedStatement(sql: "DELETE FROM device WHERE id = ? AND owner_id = ?").execute(arguments: [
                id, ownerID,
            ])
            guard db.changesCount > 0 else { return false }
            try db.cachedStatement(
                sql: """
                    UPDATE delivery SET status = 'failed', last_error = 'device unregistered', updated_at = ?,
                        lease_until = NULL, lease_owner = NULL
                    WHERE device_id = ? AND \(SQLiteDeliveryRepository.expirable)
                    """
            ).execute(arguments: [now.millisecondsSince1970, id])
            return true
        }
    }

    static func device(from row: Row) -> DeviceRecord {
        DeviceRecord(
            id: row["id"],
            ownerID: row["owner_id"],
            platform: Platform(rawValue: row["platform"]),
            token: row["token"],
            name: row["name"],
            createdAt: Date(millisecondsSince1970: row["created_at"]),
            lastRegisteredAt: Date(millisecondsSince1970: row["last_registered_at"]),
            isActive: row["active"],
            apnsMode: row["apns_mode"], publicKey: row["public_key"]
        )
    }
}
