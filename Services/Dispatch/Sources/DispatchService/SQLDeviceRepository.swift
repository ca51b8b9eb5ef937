import Foundation
import ServiceCore
import SharedModels

/// `DeviceRepository` on any ``SQLDatabase`` (SQLite or PostgreSQL), each operation written once. A registration runs
/// in one transaction that locks the token's row; with a device quota it first takes a per-owner lock, so the count
/// and the insert of concurrent registrations cannot interleave on any replica. Two replicas inserting the same new
/// token meet at the unique index; the loser registers again, now as an update. A `direct` token is unique per owner
/// (the same token from another user is another device); platform tokens are unique per platform. An APNs, FCM or
/// WNS token of another user's device is not moved: the caller gets a pending device (``DeviceVerification``).
public struct SQLDeviceRepository: DeviceRepository {
    let database: any SQLDatabase

    /// - Parameter database: a database migrated with ``DispatchMigrations/all``.
    public init(database: any SQLDatabase) {
        self.database = database
    }

    /// The device columns, in ``device(from:)``'s order.
    static let columns =
        "id, owner_id, platform, token, name, created_at, last_registered_at, active, apns_mode, public_key, app_id"

    /// How often a registration that lost the race for a new token is tried again (as an update).
    static let attempts = 3

    public func register(
        ownerID: String, platform: Platform, token: String?, name: String?, apnsMode: String?, publicKey: String?,
        appID: String, maxDevices: Int?, now: Date
    ) async throws -> DeviceRegistration {
        for _ in 0..<Self.attempts {
            if let registration = try await registerOnce(
                DeviceRegistrationRequest(
                    ownerID: ownerID, platform: platform, token: token, name: name, apnsMode: apnsMode,
                    publicKey: publicKey, appID: appID),
                maxDevices: maxDevices, now: now)
            {
                return registration
            }
        }
        throw DispatchError.dependencyUnavailable("database", "the device token kept changing during registration")
    }

    /// One registration transaction; `nil` when another transaction inserted the same token first.
    private func registerOnce(
        _ request: DeviceRegistrationRequest, maxDevices: Int?, now: Date
    ) async throws -> DeviceRegistration? {
        let (ownerID, platform, token, name) = (request.ownerID, request.platform, request.token, request.name)
        let (apnsMode, publicKey, appID) = (request.apnsMode, request.publicKey, request.appID)
        let nowMS = now.millisecondsSince1970
        return try await database.transaction { db in
            if maxDevices != nil {
                // Registrations for one owner queue here until this transaction ends, on every replica: the quota
                // count below and the insert cannot interleave with another registration's.
                try await db.lock("dispatch.device.owner:" + ownerID)
            }
            if let token, platform != .direct {
                // Registrations and verifications of one token queue here, before any row lock, on every replica.
                try await db.lock(DeviceVerification.tokenLock(platform, token))
            }
            // A direct token names a device among its owner's only: another user's same token is another device.
            // The literal platform conditions let SQLite use the matching partial unique index.
            let sameOwner =
                platform == .direct ? "AND platform = 'direct' AND owner_id = ?" : "AND platform <> 'direct'"
            if let token,
                let row = try await db.query(
                    """
                    SELECT \(Self.columns) FROM device WHERE app_id = ? AND platform = ? AND token = ? \(sameOwner)
                    \(db.dialect.lockRows)
                    """,
                    [appID, platform.rawValue, token] + (platform == .direct ? [ownerID] : [])
                ).first
            {
                let existing = try Self.device(from: row)
                if existing.ownerID != ownerID, DeviceVerification.challengedPlatforms.contains(platform) {
                    // Knowing another user's token proves nothing: the caller gets a pending device to verify.
                    return try await Self.pend(request, maxDevices: maxDevices, nowMS: nowMS, db)
                }
                return try await Self.update(
                    existing, ownerID: ownerID, name: name, apnsMode: apnsMode,
                    publicKey: publicKey, maxDevices: maxDevices, nowMS: nowMS, db)
            }
            if let token, DeviceVerification.challengedPlatforms.contains(platform),
                try await !db.query(
                    "SELECT 1 FROM device WHERE platform = ? AND token = ? AND owner_id <> ? LIMIT 1",
                    [platform.rawValue, token, ownerID]
                ).isEmpty
            {
                // Another user's device holds the token in another app (apps may share an APNs team or an FCM
                // project): a new app is no way around proving the token, so this registration is pending too.
                return try await Self.pend(request, maxDevices: maxDevices, nowMS: nowMS, db)
            }
            try await Self.checkQuota(maxDevices, ownerID: ownerID, appID: appID, nowMS: nowMS, db)
            let device = DeviceRecord(
                id: UUID.random().uuidString.lowercased(), ownerID: ownerID, platform: platform, token: token,
                name: name,
                createdAt: Date(millisecondsSince1970: nowMS), lastRegisteredAt: Date(millisecondsSince1970: nowMS),
                isActive: true, apnsMode: apnsMode, publicKey: publicKey, appID: appID)
            // A token another replica registered since the SELECT above conflicts here (on either unique index:
            // platform tokens, or one owner's direct tokens): nothing is inserted.
            let inserted = try await db.execute(
                """
                INSERT INTO device (
                    id, owner_id, platform, token, name, created_at, last_registered_at, active, apns_mode, public_key,
                    app_id)
                VALUES (?, ?, ?, ?, ?, ?, ?, TRUE, ?, ?, ?)
                ON CONFLICT DO NOTHING
                """, [device.id, ownerID, platform.rawValue, token, name, nowMS, nowMS, apnsMode, publicKey, appID])
            guard inserted > 0 else { return nil }
            if DeviceVerification.challengedPlatforms.contains(platform) {
                // The token's device is gone: a pending registration of it by this user has nothing left to prove.
                _ = try await db.execute(
                    "DELETE FROM device_verification WHERE app_id = ? AND platform = ? AND token = ? AND owner_id = ?",
                    [appID, platform.rawValue, token, ownerID])
            }
            return DeviceRegistration(device: device)
        }
    }

    /// Registers `existing` (locked) again for `ownerID`. When it changes hands, the quota counts and its undelivered
    /// jobs for the previous owner end `failed`: ids queued for one user must not reach the next.
    private static func update(
        _ existing: DeviceRecord, ownerID: String, name: String?, apnsMode: String?, publicKey: String?,
        maxDevices: Int?, nowMS: Int64, _ db: any SQLTransaction
    ) async throws -> DeviceRegistration {
        var device = existing
        let changesHands = existing.ownerID != ownerID
        if changesHands {
            try await checkQuota(maxDevices, ownerID: ownerID, appID: existing.appID, nowMS: nowMS, db)
            try await failUnfinishedJobs(of: existing.id, reason: "device re-registered by another user", nowMS, db)
        }
        device.ownerID = ownerID
        device.name = changesHands ? name : (name ?? existing.name)
        device.lastRegisteredAt = Date(millisecondsSince1970: nowMS)
        device.isActive = true
        // The latest registration says how the app wants to be woken; unset means the deployment's mode.
        device.apnsMode = apnsMode
        // Re-registering may change the key (or drop it: the device is then unsealed).
        device.publicKey = publicKey
        if existing.publicKey != nil, changesHands || publicKey != existing.publicKey {
            // The store deletes what was sealed to the device until now: its key changed, or it has a new owner.
            try await DeviceRevocationOutbox.enqueue(existing.id, now: Date(millisecondsSince1970: nowMS), db)
        }
        _ = try await db.execute(
            """
            UPDATE device SET owner_id = ?, name = ?, last_registered_at = ?, active = TRUE, deactivated_at = NULL,
                apns_mode = ?, public_key = ?
            WHERE id = ?
            """, [ownerID, device.name, nowMS, apnsMode, publicKey, device.id])
        return DeviceRegistration(device: device, previousOwnerID: changesHands ? existing.ownerID : nil)
    }

    /// Throws `quotaExceeded` when `ownerID` already has `maxDevices` devices of `appID` (active or not: each is a row;
    /// a pending device counts until it expires), not counting the pending device `excluding` (the one being verified).
    static func checkQuota(
        _ maxDevices: Int?, ownerID: String, appID: String, nowMS: Int64, excluding pendingID: String? = nil,
        _ db: any SQLTransaction
    ) async throws {
        guard let maxDevices else { return }
        let count = try await db.query(
            """
            SELECT (SELECT COUNT(*) FROM device WHERE owner_id = ? AND app_id = ?)
                + (SELECT COUNT(*) FROM device_verification
                    WHERE owner_id = ? AND app_id = ? AND expires_at > ? AND device_id <> ?)
            """, [ownerID, appID, ownerID, appID, nowMS, pendingID ?? ""]
        ).first?.decode(0, as: Int.self)
        if (count ?? 0) >= maxDevices {
            throw DispatchError.quotaExceeded(.devicesPerUser, limit: maxDevices, appID: appID)
        }
    }

    /// Ends the device's undelivered jobs `failed`, and wakes its streams on every replica when the transaction
    /// commits: they re-check who owns the device and end when it was removed or moved to another user.
    static func failUnfinishedJobs(
        of deviceID: String, reason: String, _ nowMS: Int64, _ db: any SQLTransaction
    ) async throws {
        _ = try await db.execute(
            """
            UPDATE delivery SET status = 'failed', last_error = ?, updated_at = ?, lease_until = NULL, lease_owner = NULL
            WHERE device_id = ? AND \(SQLDeliveryRepository.expirable)
            """, [reason, nowMS, deviceID])
        try await db.notify(DispatchMigrations.wakeChannel, "d:" + deviceID)
    }

    /// An indexed lookup on `push.send`'s path: read on the calling thread where the database allows.
    public func devices(ownerID: String) async throws -> [DeviceRecord] {
        try await database.readImmediatelyIfPossible(
            """
            SELECT \(Self.columns) FROM device WHERE owner_id = ?
            ORDER BY created_at, \(DispatchMigrations.registrationOrder(database.dialect))
            """, [ownerID]
        ).map(Self.device(from:))
    }

    public func activeDevices(ownerIDs: [String], appID: String) async throws -> [DeviceRecord] {
        guard !ownerIDs.isEmpty else { return [] }
        let owners = String(decoding: try JSONEncoder().encode(ownerIDs), as: UTF8.self)
        return try await database.read(
            """
            SELECT \(Self.columns) FROM device
            WHERE owner_id IN (\(database.dialect.jsonTextArray)) AND app_id || '' = ? AND active = TRUE
            ORDER BY created_at, \(DispatchMigrations.registrationOrder(database.dialect))
            """, [owners, appID]
        ).map(Self.device(from:))
    }

    public func device(id: String) async throws -> DeviceRecord? {
        // A primary-key lookup on `devices.ack`'s path: read on the calling thread where the database allows.
        try await database.readImmediatelyIfPossible("SELECT \(Self.columns) FROM device WHERE id = ?", [id]).first
            .map(Self.device(from:))
    }

    public func devices(ids: [String]) async throws -> [DeviceRecord] {
        guard !ids.isEmpty else { return [] }
        let list = String(decoding: try JSONEncoder().encode(ids), as: UTF8.self)
        return try await database.read(
            "SELECT \(Self.columns) FROM device WHERE id IN (\(database.dialect.jsonTextArray))", [list],
            keys: ids.count
        ).map(Self.device(from:))
    }

    public func unregister(id: String, ownerID: String, now: Date) async throws -> Bool {
        let nowMS = now.millisecondsSince1970
        return try await database.transaction { db in
            guard try await db.execute("DELETE FROM device WHERE id = ? AND owner_id = ?", [id, ownerID]) > 0 else {
                // A pending device has no jobs and nothing sealed to it: removing it is all.
                return try await db.execute(
                    "DELETE FROM device_verification WHERE device_id = ? AND owner_id = ?", [id, ownerID]) > 0
            }
            try await Self.failUnfinishedJobs(of: id, reason: "device unregistered", nowMS, db)
            // The store deletes what was sealed to it (a device with no key has nothing there: a no-op).
            try await DeviceRevocationOutbox.enqueue(id, now: now, db)
            return true
        }
    }

    /// Decodes a row selected with ``columns``.
    static func device(from row: SQLRow) throws -> DeviceRecord {
        DeviceRecord(
            id: try row.decode(0), ownerID: try row.decode(1), platform: Platform(rawValue: try row.decode(2)),
            token: try row.decode(3), name: try row.decode(4),
            createdAt: Date(millisecondsSince1970: try row.decode(5)),
            lastRegisteredAt: Date(millisecondsSince1970: try row.decode(6)), isActive: try row.decode(7),
            apnsMode: try row.decode(8), publicKey: try row.decode(9), appID: try row.decode(10))
    }
}
