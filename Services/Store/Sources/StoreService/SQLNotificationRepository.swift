import Foundation
import Logging
import ServiceCore

/// The notification repository on any ``SQLDatabase`` (SQLite or PostgreSQL): each operation written once, one
/// statement or one transaction each; server-readable payloads pass through a `PayloadSealer` on the way in and out
/// (sealed copies are HPKE ciphertext already and are stored as given). A row whose `payload_scheme` is `none` keeps
/// no server-readable copy.
public struct SQLNotificationRepository: NotificationRepository, ImmediateNotificationFetching {
    let database: any SQLDatabase
    /// ``database`` when it reads on the calling thread (SQLite); cast once, not per fetch.
    private let immediateReader: (any SQLImmediateReading)?
    private let sealer: any PayloadSealer
    private let logger: Logger

    /// - Parameters:
    ///   - database: a database migrated with ``StoreMigrations``.
    ///   - sealer: seals payloads at rest (``AESGCMPayloadSealer`` in every running store).
    ///   - logger: where a failed purge of erased bytes is reported (the erasure itself has committed by then).
    public init(
        database: any SQLDatabase, sealer: any PayloadSealer,
        logger: Logger = Logger(label: "securepush.store.repository")
    ) {
        self.database = database
        immediateReader = database as? any SQLImmediateReading
        self.sealer = sealer
        self.logger = logger
    }

    /// ``SQLDatabase/purgeErasedBytes()`` after an erasure that has committed: a failure is logged, never thrown, so
    /// the caller still gets what the erasure gave (a read-once payload must not be lost to a failed checkpoint).
    func purgeErasedBytes() async {
        do {
            try await database.purgeErasedBytes()
        } catch {
            logger.warning("store.erasure.purge_failed", metadata: ["error": "\(error)"])
        }
    }

    /// The payload scheme of a row that keeps no server-readable copy (sealed only, or erased after a read-once fetch).
    static let noPayloadScheme = "none"

    public func insert(_ records: [NotificationRecord]) async throws -> [NotificationMetadata] {
        // Sealed at rest before the transaction: the writer holds it for the inserts only.
        let rows = try records.map { record -> [any SQLBindable] in
            let metadata = record.metadata
            let readable = try record.payload.map { try sealer.seal(Data($0.utf8), notificationID: metadata.id) }
            return [
                metadata.id, metadata.recipientID, readable?.bytes ?? Data(), readable?.scheme ?? Self.noPayloadScheme,
                metadata.createdAt.millisecondsSince1970, metadata.expiresAt.millisecondsSince1970,
                metadata.readAt?.millisecondsSince1970, metadata.readOnce, record.writerKey, record.held ? 1 : 0,
            ]
        }
        return try await database.transaction { db in
            var inserted = Set<String>()
            for start in stride(from: 0, to: rows.count, by: Self.insertBatchSize) {
                let batch = rows[start..<min(start + Self.insertBatchSize, rows.count)]
                // A writer key seen before keeps its first notification: the conflicting row is skipped, not an error.
                for row in try await db.query(
                    """
                    INSERT INTO notification (
                        id, recipient_id, payload, payload_scheme, created_at, expires_at, read_at, read_once, writer_key,
                        held)
                    VALUES \(Array(repeating: "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", count: batch.count).joined(separator: ", "))
                    ON CONFLICT (writer_key) WHERE writer_key IS NOT NULL DO NOTHING
                    RETURNING id
                    """, Array(batch.joined()))
                {
                    inserted.insert(try row.decode(0, as: String.self))
                }
            }
            let copies = records.filter { inserted.contains($0.metadata.id) }.flatMap { record in
                record.sealedCopies.map { (record.metadata.id, $0) }
            }
            for start in stride(from: 0, to: copies.count, by: Self.insertBatchSize) {
                let batch = copies[start..<min(start + Self.insertBatchSize, copies.count)]
                var bindings: [any SQLBindable] = []
                for (id, copy) in batch { bindings += [id, copy.deviceID, copy.publicKey, copy.enc, copy.ciphertext] }
                _ = try await db.execute(
                    """
                    INSERT INTO sealed_copy (notification_id, device_id, public_key, enc, ciphertext)
                    VALUES \(Array(repeating: "(?, ?, ?, ?, ?)", count: batch.count).joined(separator: ", "))
                    """, bindings)
            }
            var results: [NotificationMetadata] = []
            results.reserveCapacity(records.count)
            for record in records {
                if let key = record.writerKey, !inserted.contains(record.metadata.id) {
                    // Stored by an earlier call with this key: its first notification, expired or not.
                    guard
                        let row = try await db.query(
                            "SELECT \(Self.metadataColumns), held FROM notification WHERE writer_key = ?", [key]
                        ).first
                    else { throw StoreError.invalidField("idempotencyKey", "was stored and removed meanwhile: retry") }
                    var first = try Self.metadata(from: row)
                    first.held = try row.decode(7, as: Int.self) != 0
                    results.append(first)
                } else {
                    var metadata = record.metadata
                    metadata.held = record.held
                    results.append(metadata)
                }
            }
            return results
        }
    }

    /// Rows per multi-row `INSERT` (10 bindings each: well under SQLite's and PostgreSQL's limits).
    static let insertBatchSize = 100

    public func find(id: String, recipientID: String, now: Date) async throws -> NotificationRecord? {
        guard
            let row = try await database.readOne(
                "SELECT \(Self.columns) FROM notification WHERE id = ? AND recipient_id = ? AND expires_at > ? AND held = 0",
                [id, recipientID, now.millisecondsSince1970])
        else { return nil }
        return NotificationRecord(metadata: try Self.metadata(from: row), payload: try open(row))
    }

    public func fetch(id: String, recipientID: String, deviceID: String?, proven: Bool, now: Date) async throws
        -> FetchOutcome
    {
        let nowMS = now.millisecondsSince1970
        if deviceID == nil {
            // The common fetch (no device, not read-once) changes nothing: one read, no write transaction.
            let row = try await database.readOne(Self.fetchSQL, [id, recipientID, nowMS])
            if let outcome = try plainFetch(row) { return outcome }
        }
        let (outcome, erased) = try await database.transaction { db -> (FetchOutcome, Bool) in
            guard
                let row = try await db.query(
                    "SELECT \(Self.columns) FROM notification WHERE id = ? AND recipient_id = ? AND expires_at > ? AND held = 0",
                    [id, recipientID, nowMS]
                ).first
            else { return (.missing, false) }
            var metadata = try Self.metadata(from: row)
            if let goneAt = metadata.goneAt { return (.gone(readAt: metadata.readAt ?? goneAt), false) }
            var copy: SealedCopyRecord?
            if let deviceID {
                // Never a copy of a device revoked since the notification was created (one a store.put racing the
                // revocation inserted after its delete).
                copy = try await db.query(
                    """
                    SELECT c.device_id, c.public_key, c.enc, c.ciphertext
                    FROM sealed_copy c JOIN notification n ON n.id = c.notification_id
                    WHERE c.notification_id = ? AND c.device_id = ? AND NOT \(Self.revokedCopy)
                    """, [id, deviceID]
                ).first.map(Self.sealedCopy(from:))
            }
            // A proof was checked against a copy that is gone now (revoked meanwhile): nothing else is handed out in
            // its name, neither the server-readable payload nor a read-once erasure.
            if proven, copy == nil { return (.missing, false) }
            let payload = try self.open(row)
            if copy == nil, payload == nil {
                // A sealed-only notification: a device without a copy of its own is not a recipient.
                return (deviceID == nil ? .deviceRequired : .missing, false)
            }
            // Whoever holds only the user's token must not burn a copy that the device alone can open.
            if metadata.readOnce, !proven, copy != nil { return (.proofRequired, false) }
            if metadata.readOnce {
                // The statement that wins decides: a concurrent fetch waits for this transaction, then finds gone_at set.
                let erased = try await db.execute(
                    """
                    UPDATE notification SET gone_at = ?, read_at = COALESCE(read_at, ?), payload = ?, payload_scheme = ?
                    WHERE id = ? AND gone_at IS NULL
                    """, [nowMS, nowMS, Data(), Self.noPayloadScheme, id])
                guard erased == 1 else {
                    let readAt = try await db.query("SELECT read_at FROM notification WHERE id = ?", [id]).first
                    let at = Date(millisecondsSince1970: try readAt?.decode(0, as: Int64?.self) ?? nowMS)
                    return (.gone(readAt: at), false)
                }
                _ = try await db.execute(
                    "UPDATE sealed_copy SET enc = NULL, ciphertext = NULL WHERE notification_id = ?", [id])
                metadata.readAt = metadata.readAt ?? Date(millisecondsSince1970: nowMS)
            }
            if let deviceID {
                _ = try await db.execute(
                    """
                    INSERT INTO fetch_receipt (notification_id, device_id, fetched_at, expires_at) VALUES (?, ?, ?, ?)
                    ON CONFLICT (notification_id, device_id) DO NOTHING
                    """, [id, deviceID, nowMS, metadata.expiresAt.millisecondsSince1970])
            }
            if let copy { return (.sealed(metadata, copy), metadata.readOnce) }
            guard let payload else { return (.missing, metadata.readOnce) }
            return (.payload(metadata, payload), metadata.readOnce)
        }
        // The erased copies must not linger in the write-ahead log either.
        if erased { await purgeErasedBytes() }
        return outcome
    }

    public func fetchImmediately(id: String, recipientID: String, now: Date) throws -> FetchOutcome? {
        guard let reader = immediateReader,
            let rows = try reader.readImmediately(Self.fetchSQL, [id, recipientID, now.millisecondsSince1970])
        else { return nil }
        return try plainFetch(rows.first)
    }

    /// The recipient's unexpired notification with its payload (``columns``).
    private static let fetchSQL =
        "SELECT \(columns) FROM notification WHERE id = ? AND recipient_id = ? AND expires_at > ? AND held = 0"

    /// A fetch for no particular device decided by its one read (`row`, read with ``fetchSQL``); `nil` when the
    /// notification is read-once, whose fetch changes it (a transaction).
    private func plainFetch(_ row: SQLRow?) throws -> FetchOutcome? {
        guard let row else { return .missing }
        let metadata = try Self.metadata(from: row)
        guard !metadata.readOnce else { return nil }
        guard let payload = try open(row) else { return .deviceRequired }
        return .payload(metadata, payload)
    }

    public func sealedRecipient(id: String, deviceID: String, now: Date) async throws -> (
        recipientID: String, publicKey: Data
    )? {
        guard
            let row = try await database.readOne(
                """
                SELECT n.recipient_id, c.public_key FROM sealed_copy c JOIN notification n ON n.id = c.notification_id
                WHERE c.notification_id = ? AND c.device_id = ? AND n.expires_at > ? AND n.held = 0 AND NOT \(Self.revokedCopy)
                """, [id, deviceID, now.millisecondsSince1970])
        else { return nil }
        return (try row.decode(0), try row.decode(1))
    }

    public func receipts(id: String) async throws -> [(deviceID: String, fetchedAt: Date)] {
        try await database.read(
            "SELECT device_id, fetched_at FROM fetch_receipt WHERE notification_id = ? ORDER BY fetched_at, device_id",
            [id]
        ).map { (try $0.decode(0), Date(millisecondsSince1970: try $0.decode(1))) }
    }

    public func receipts(since after: Date, limit: Int) async throws -> [(
        notificationID: String, deviceID: String, fetchedAt: Date
    )] {
        try await database.read(
            """
            SELECT notification_id, device_id, fetched_at FROM fetch_receipt WHERE fetched_at >= ?
            ORDER BY fetched_at, notification_id, device_id LIMIT ?
            """, [after.millisecondsSince1970, limit]
        ).map { (try $0.decode(0), try $0.decode(1), Date(millisecondsSince1970: try $0.decode(2))) }
    }

    /// The payload of a row read with ``columns``; `nil` when the row keeps no server-readable copy.
    func open(_ row: SQLRow) throws -> String? {
        let scheme: String = try row.decode(8)
        guard scheme != Self.noPayloadScheme else { return nil }
        let opened = try sealer.open(
            try row.decode(7, as: Data.self), scheme: scheme, notificationID: try row.decode(0))
        guard let payload = String(data: opened, encoding: .utf8) else { throw StoreError.corruptPayload }
        return payload
    }

    private static func sealedCopy(from row: SQLRow) throws -> SealedCopyRecord {
        SealedCopyRecord(
            deviceID: try row.decode(0), publicKey: try row.decode(1), enc: try row.decode(2),
            ciphertext: try row.decode(3))
    }

    public func list(recipientID: String, unreadOnly: Bool, after cursor: ListCursor?, limit: Int, now: Date)
        async throws -> [NotificationMetadata]
    {
        var sql = """
            SELECT \(Self.metadataColumns) FROM notification WHERE recipient_id = ? AND expires_at > ? AND held = 0
            """
        var binds: [any SQLBindable] = [recipientID, now.millisecondsSince1970]
        if unreadOnly { sql += " AND read_at IS NULL" }
        if let cursor {
            sql += " AND (created_at < ? OR (created_at = ? AND id < ?))"
            binds += [cursor.createdAtMilliseconds, cursor.createdAtMilliseconds, cursor.id]
        }
        sql += " ORDER BY created_at DESC, id DESC LIMIT ?"
        binds.append(limit)
        return try await database.read(sql, binds).map(Self.metadata(from:))
    }

    public func markRead(id: String, recipientID: String, at: Date, now: Date) async throws -> Date? {
        // One statement: set read_at the first time, and return whatever it is now.
        let rows = try await database.write(
            """
            UPDATE notification SET read_at = COALESCE(read_at, ?)
            WHERE id = ? AND recipient_id = ? AND expires_at > ? AND held = 0
            RETURNING read_at
            """, [at.millisecondsSince1970, id, recipientID, now.millisecondsSince1970])
        return try rows.first.map { Date(millisecondsSince1970: try $0.decode(0)) }
    }

    public func delete(id: String, recipientID: String, now: Date) async throws -> Bool {
        let nowMS = now.millisecondsSince1970
        let erased = try await database.transaction { db in
            let deleted = try await db.execute(
                "DELETE FROM notification WHERE id = ? AND recipient_id = ? AND expires_at > ? AND held = 0",
                [id, recipientID, nowMS])
            if deleted > 0 { _ = try await db.execute("DELETE FROM sealed_copy WHERE notification_id = ?", [id]) }
            return deleted > 0
        }
        if erased { await purgeErasedBytes() }
        return erased
    }

    public func deleteExpired(now: Date) async throws -> Int {
        // One replica at a time: the others skip this round.
        let cutoff = now.millisecondsSince1970
        let deleted = try await database.exclusively("purge") { db in
            _ = try await db.execute(
                "DELETE FROM sealed_copy WHERE notification_id IN "
                    + "(SELECT id FROM notification WHERE expires_at <= ?)", [cutoff])
            _ = try await db.execute("DELETE FROM proof_jti WHERE expires_at <= ?", [cutoff])
            // Kept longer than any notification lives (a copy a racing store.put inserted after the revocation stays
            // refused until it expires) and long past any retry of the call that made it.
            _ = try await db.execute(
                "DELETE FROM device_revocation WHERE revoked_at < ?", [cutoff - Self.revocationRetentionMilliseconds])
            return try await db.execute("DELETE FROM notification WHERE expires_at <= ?", [cutoff])
        }
        if let deleted, deleted > 0 { await purgeErasedBytes() }
        return deleted ?? 0
    }

    /// How long a device revocation is kept: longer than the longest notification lifetime (30 days).
    static let revocationRetentionMilliseconds: Int64 = 31 * 86_400_000
    /// Deletes receipts whose notification expired more than `retention` before `now` (`SECUREPUSH_RETAIN_RECEIPTS`:
    /// they outlive their notification, so `push.status` still shows them after expiry); returns how many.
    public func purgeReceipts(now: Date, retention: Duration) async throws -> Int {
        let cutoff = now.millisecondsSince1970 - Int64(retention.components.seconds) * 1_000
        let deleted = try await database.exclusively("purge-receipts") { db in
            try await db.execute("DELETE FROM fetch_receipt WHERE expires_at <= ?", [cutoff])
        }
        if let deleted, deleted > 0 { await purgeErasedBytes() }
        return deleted ?? 0
    }
    /// What ``metadata(from:)`` reads.
    static let metadataColumns = "id, recipient_id, created_at, expires_at, read_at, read_once, gone_at"
    /// The metadata columns, then the payload and its scheme.
    static let columns = metadataColumns + ", payload, payload_scheme"

    /// The first seven columns: ``metadataColumns``.
    static func metadata(from row: SQLRow) throws -> NotificationMetadata {
        NotificationMetadata(
            id: try row.decode(0),
            recipientID: try row.decode(1),
            createdAt: Date(millisecondsSince1970: try row.decode(2)),
            expiresAt: Date(millisecondsSince1970: try row.decode(3)),
            readAt: try row.decode(4, as: Int64?.self).map(Date.init(millisecondsSince1970:)),
            readOnce: try row.decode(5),
            goneAt: try row.decode(6, as: Int64?.self).map(Date.init(millisecondsSince1970:))
        )
    }
}
