import Foundation
import ServiceCore

/// push-dispatch's outbox of device revocations for the notification store (`store.revokeDevices`), on any
/// ``SQLDatabase``: a device change enqueues in its own transaction (``enqueue(_:now:_:)``), so no revocation is lost
/// to a crash or a store outage; ``RevocationSender`` claims batches, sends them and removes what was answered.
///
/// A claimed batch keeps its id until answered: when its answer was lost (the sender died, the call timed out), it is
/// claimed again after ``staleAfter`` and sent with the same id, which the store recognises. A device revoked again
/// while its batch is in flight leaves the batch and waits for the next one. Replicas may claim at once: each claim
/// takes only rows nobody holds, and a stale batch sent twice is harmless (the store's answer is idempotent).
public struct DeviceRevocationOutbox: Sendable {
    let database: any SQLDatabase
    /// How long a claimed batch waits for its answer before another claim sends it again.
    let staleAfter: Duration

    /// - Parameters:
    ///   - database: a database migrated with ``DispatchMigrations/all``.
    ///   - staleAfter: how long an unanswered batch is left to its sender (longer than a store call can take).
    public init(database: any SQLDatabase, staleAfter: Duration = .seconds(30)) {
        self.database = database
        self.staleAfter = staleAfter
    }

    /// Queues `deviceID`'s revocation inside the transaction `db` that changed the device.
    static func enqueue(_ deviceID: String, now: Date, _ db: any SQLTransaction) async throws {
        _ = try await db.execute(
            """
            INSERT INTO device_revocation_outbox (device_id, queued_at) VALUES (?, ?)
            ON CONFLICT (device_id) DO UPDATE SET queued_at = excluded.queued_at, batch_id = NULL, batch_at = NULL
            """, [deviceID, now.millisecondsSince1970])
    }

    /// A batch to send: its id (the call's `revocationId`) and devices.
    public struct Batch: Sendable, Hashable {
        public var id: String
        public var deviceIDs: [String]
    }

    /// Claims the next batch of at most `limit` devices: a stale one first (sent again with its id), else the oldest
    /// waiting rows under a new id. `nil` when nothing waits.
    public func claim(limit: Int, now: Date) async throws -> Batch? {
        let nowMS = now.millisecondsSince1970
        let staleBefore = nowMS - Int64(staleAfter.timeInterval * 1000)
        return try await database.transaction { db in
            if let row = try await db.query(
                "SELECT batch_id FROM device_revocation_outbox WHERE batch_id IS NOT NULL AND batch_at <= ? "
                    + "ORDER BY batch_at LIMIT 1",
                [staleBefore]
            ).first {
                let id: String = try row.decode(0)
                // Only if still stale: a replica that reclaimed it meanwhile keeps it (the row lock makes the second
                // UPDATE see the first one's batch_at).
                let reclaimed = try await db.execute(
                    "UPDATE device_revocation_outbox SET batch_at = ? WHERE batch_id = ? AND batch_at <= ?",
                    [nowMS, id, staleBefore])
                if reclaimed > 0 {
                    let devices = try await Self.devices(in: id, db)
                    if !devices.isEmpty { return Batch(id: id, deviceIDs: devices) }
                }
            }
            let waiting = try await db.query(
                "SELECT device_id FROM device_revocation_outbox WHERE batch_id IS NULL ORDER BY queued_at LIMIT ?",
                [limit]
            ).map { try $0.decode(0, as: String.self) }
            guard !waiting.isEmpty else { return nil }
            let id = UUID.random().uuidString.lowercased()
            let list = String(decoding: try JSONEncoder().encode(waiting), as: UTF8.self)
            // Only rows still unclaimed: a replica that claimed some of them meanwhile keeps them.
            _ = try await db.execute(
                """
                UPDATE device_revocation_outbox SET batch_id = ?, batch_at = ?
                WHERE batch_id IS NULL AND device_id IN (\(db.dialect.jsonTextArray))
                """, [id, nowMS, list])
            let devices = try await Self.devices(in: id, db)
            return devices.isEmpty ? nil : Batch(id: id, deviceIDs: devices)
        }
    }

    /// Removes the answered batch's rows (a device revoked again meanwhile left the batch and stays).
    public func remove(_ batch: Batch) async throws {
        _ = try await database.execute("DELETE FROM device_revocation_outbox WHERE batch_id = ?", [batch.id])
    }

    /// The batch's call failed here (no answer): it may be claimed again at once, still under its id (the store may
    /// have applied it before the answer was lost).
    public func release(_ batch: Batch) async throws {
        _ = try await database.execute(
            "UPDATE device_revocation_outbox SET batch_at = 0 WHERE batch_id = ?", [batch.id])
    }

    /// How many revocations wait for the store's answer.
    public func pendingCount() async throws -> Int {
        try await database.readOne("SELECT COUNT(*) FROM device_revocation_outbox", [])?.decode(0, as: Int.self) ?? 0
    }

    private static func devices(in batch: String, _ db: any SQLTransaction) async throws -> [String] {
        try await db.query(
            "SELECT device_id FROM device_revocation_outbox WHERE batch_id = ? ORDER BY queued_at, device_id", [batch]
        ).map { try $0.decode(0, as: String.self) }
    }
}
