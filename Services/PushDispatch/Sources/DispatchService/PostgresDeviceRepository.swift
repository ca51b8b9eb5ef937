import Foundation
import Logging
import PostgresNIO
import ServiceCore
import SharedModels

/// `DeviceRepository` on PostgreSQL, shared by every push-dispatch replica. A registration runs in one transaction
/// that locks the token's row; two replicas registering a new token at once meet at the unique index, and the loser
/// retries as an update.
public struct PostgresDeviceRepository: DeviceRepository {
    let database: PostgresServiceDatabase

    public init(database: PostgresServiceDatabase) {
        self.database = database
    }

    static let columns =
        "id, owner_id, platform, token, name, created_at, last_registered_at, active, apns_mode, public_key"

    public func register(
        ownerID: String, platform: Platform, token: String?, name: String?, apnsMode: String?, publicKey: String?,
        maxDevices: Int?, now: Date
    ) async throws -> DeviceRegistration {
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try await registerOnce(
                    ownerID: ownerID, platform: platform, token: token, name: name, apnsMode: apnsMode,
                    publicKey: publicKey, maxDevices: maxDevices, now: now)
            } catch let error as PSQLError where error.isUniqueViolation && attempt < 3 {
                continue  // another replica inserted the same token first: now it is an update
            }
        }
    }

    private func registerOnce(
        ownerID: String, platform: Platform, token: String?, name: String?, apnsMode: String?, publicKey: String?,
        maxDevices: Int?, now: Date
    ) async throws -> DeviceRegistration {
        let nowMS = now.millisecondsSince1970
        return try await database.transaction { connection in
            if maxDevices != nil {
                // Registrations for one owner queue here until this transaction ends, on every replica: the quota
                // count below and the insert cannot interleave with another registration's.
                try await connection.query(
                    "SELECT pg_advisory_xact_lock(hashtextextended(\("dispatch.device.owner:" + ownerID), 0))",
                    logger: database.logger)
            }
            if let token {
                let rows = try await connection.query(
                    """
                    SELECT id, owner_id, platform, token, name, created_at, last_registered_at, active, apns_mode, public_key
                    FROM device WHERE platform = \(platform.rawValue) AND token = \(token) FOR UPDATE
                    """, logger: database.logger)
                var found: DeviceRecord?
                for try await row in rows { found = try Self.device(from: row) }
                if var existing = found {
                    let previousOwnerID = existing.ownerID
                    let changesHands = previousOwnerID != ownerID
                    if changesHands {
                        try await checkQuota(maxDevices, ownerID: ownerID, connection)
                        // Ids queued for the previous owner must not reach the next one.
                        try await connection.query(
                            PostgresQuery(
                                unsafeSQL: """
                                    UPDATE delivery SET status = 'failed', last_error = 'device re-registered by another user',
                                        updated_at = $1, lease_until = NULL, lease_owner = NULL
                                    WHERE device_id = $2 AND \(PostgresDeliveryRepository.expirable)
                                    """, binds: Self.binds(nowMS, existing.id)), logger: database.logger)
                        try await Self.notifyStreams(of: existing.id, connection, logger: database.logger)
                    }
                    existing.ownerID = ownerID
                    existing.name = changesHands ? name : (name ?? existing.name)
                    existing.lastRegisteredAt = Date(millisecondsSince1970: nowMS)
                    existing.isActive = true
                    existing.apnsMode = apnsMode
                    existing.publicKey = publicKey
                    try await connection.query(
                        """
                        UPDATE device SET owner_id = \(ownerID), name = \(existing.name), last_registered_at = \(nowMS),
                            active = TRUE, deactivated_at = NULL, apns_mode = \(apnsMode),
                            public_key = \(publicKey)
                        WHERE id = \(existing.id)
                        """, logger: database.logger)
                    return DeviceRegistration(device: existing, previousOwnerID: changesHands ? previousOwnerID : nil)
                }
            }
            try await checkQuota(maxDevices, ownerID: ownerID, connection)
            let device = DeviceRecord(
                id: UUID().uuidString.lowercased(), ownerID: ownerID, platform: platform, token: token, name: name,
                createdAt: Date(millisecondsSince1970: nowMS), lastRegisteredAt: Date(millisecondsSince1970: nowMS),
                isActive: true, apnsMode: apnsMode, publicKey: publicKey)
            try await connection.query(
                """
                INSERT INTO device (
                    id, owner_id, platform, token, name, created_at, last_registered_at, active, apns_mode, public_key)
                VALUES (\(device.id), \(ownerID), \(platform.rawValue), \(token), \(name), \(nowMS), \(nowMS), TRUE,
                        \(apnsMode), \(publicKey))
                """, logger: database.logger)
            return DeviceRegistration(device: device)
        }
    }

    /// Throws `quotaExceeded` when `ownerID` already has `maxDevices` devices (active or not: each is a row).
    private func checkQuota(_ maxDevices: Int?, ownerID: String, _ connection: PostgresConnection) async throws {
        guard let maxDevices else { return }
        var count = 0
        for try await value in try await connection.query(
            "SELECT COUNT(*)::BIGINT FROM device WHERE owner_id = \(ownerID)", logger: database.logger
        ).decode(Int64.self) {
            count = Int(value)
        }
        if count >= maxDevices { throw DispatchError.quotaExceeded(.devicesPerUser, limit: maxDevices) }
    }

    /// Wakes the device's streams on every replica when the transaction commits: they re-check who owns the device
    /// and end when it was removed or moved to another user.
    static func notifyStreams(of deviceID: String, _ connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(
            "SELECT pg_notify(\(DispatchMigrations.wakeChannel), \("d:" + deviceID))", logger: logger)
    }

    public func devices(ownerID: String) async throws -> [DeviceRecord] {
        try await database.withClient { client in
            let rows = try await client.query(
                """
                SELECT id, owner_id, platform, token, name, created_at, last_registered_at, active, apns_mode, public_key
                FROM device WHERE owner_id = \(ownerID) ORDER BY created_at, registration_order
                """)
            var devices: [DeviceRecord] = []
            for try await row in rows { devices.append(try Self.device(from: row)) }
            return devices
        }
    }

    public func device(id: String) async throws -> DeviceRecord? {
        try await database.withClient { client in
            let rows = try await client.query(
                """
                SELECT id, owner_id, platform, token, name, created_at, last_registered_at, active, apns_mode, public_key
                FROM device WHERE id = \(id)
                """)
            for try await row in rows { return try Self.device(from: row) }
            return nil
        }
    }

    public func unregister(id: String, ownerID: String, now: Date) async throws -> Bool {
        let nowMS = now.millisecondsSince1970
        return try await database.transaction { connection in
            var deleted = false
            for try await _ in try await connection.query(
                "DELETE FROM device WHERE id = \(id) AND owner_id = \(ownerID) RETURNING id", logger: database.logger)
            {
                deleted = true
            }
            guard deleted else { return false }
            try await connection.query(
                PostgresQuery(
                    unsafeSQL: """
                        UPDATE delivery SET status = 'failed', last_error = 'device unregistered', updated_at = $1,
                            lease_until = NULL, lease_owner = NULL
                        WHERE device_id = $2 AND \(PostgresDeliveryRepository.expirable)
                        """, binds: Self.binds(nowMS, id)), logger: database.logger)
            try await Self.notifyStreams(of: id, connection, logger: database.logger)
            return true
        }
    }

    static func binds(_ milliseconds: Int64, _ text: String) -> PostgresBindings {
        var binds = PostgresBindings()
        binds.append(milliseconds)
        binds.append(text)
        return binds
    }

    static func device(from row: PostgresRow) throws -> DeviceRecord {
        let (id, owner, platform, token, name, created, registered, active, apnsMode, publicKey) = try row.decode(
            (String, String, String, String?, String?, Int64, Int64, Bool, String?, String?).self)
        return DeviceRecord(
            id: id, ownerID: owner, platform: Platform(rawValue: platform), token: token, name: name,
            createdAt: Date(millisecondsSince1970: created), lastRegisteredAt: Date(millisecondsSince1970: registered),
            isActive: active, apnsMode: apnsMode, publicKey: publicKey)
    }
}

extension PSQLError {
    /// Whether PostgreSQL refused a duplicate key (SQLSTATE 23505).
    var isUniqueViolation: Bool { serverInfo?[.sqlState] == "23505" }
}
