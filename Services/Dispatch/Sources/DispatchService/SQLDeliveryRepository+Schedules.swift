import Foundation
import ServiceCore
import SharedModels

/// Scheduled sends (`push.send` `sendAt`): recorded `scheduled` without jobs, claimed when due by one replica under a
/// lease (`publishing`), and recorded `sent` with their jobs once the store has published them; or `cancelled`.
extension SQLDeliveryRepository {
    /// The send columns ``scheduledSend(from:)`` reads.
    static let scheduledColumns = """
        notification_id, client_id, recipient_id, expires_at, created_at, app_id, priority, collapse_id, send_at,
        sealed_only, traceparent
        """

    public func claimDueSchedules(owner: String, now: Date, leaseUntil: Date, limit: Int) async throws -> [SendRecord] {
        let nowMS = now.millisecondsSince1970
        // A read first: the round runs every 250 ms on every replica and almost always finds nothing due, and the read
        // (on SQLite, on the calling thread) takes no writer, lock or commit. A send that falls due after it waits
        // for the next round, as it would have without it.
        guard try await !database.readImmediatelyIfPossible(Self.dueScheduleSQL, [nowMS, nowMS]).isEmpty else {
            return []
        }
        // One statement claims: on PostgreSQL SKIP LOCKED makes replicas claiming at once take different rows, and
        // a row is re-checked after its lock, so a send is never claimed twice. A claim whose owner died (its lease
        // lapsed) is claimed again. The inner SELECT reads the partial index `push_send_due` (waiting sends only),
        // so looking every 250 ms costs nothing however many sends were made.
        return try await database.write(
            Self.claimSchedulesSQL(database.dialect), [owner, leaseUntil.millisecondsSince1970, nowMS, nowMS, limit]
        ).map(Self.scheduledSend(from:)).sorted { ($0.sendAt ?? .distantPast) < ($1.sendAt ?? .distantPast) }
    }

    /// The scheduled sends a claim may take at a time (now, now): due, and waiting or their claimer's lease lapsed.
    static let dueScheduleFilter = """
        state IN ('scheduled', 'publishing') AND send_at <= ? AND (state = 'scheduled' OR lease_until <= ?)
        """

    /// Whether any scheduled send is claimable (now, now).
    static let dueScheduleSQL = "SELECT 1 FROM push_send WHERE \(dueScheduleFilter) LIMIT 1"

    /// The claim (owner, lease until, now, now, limit).
    static func claimSchedulesSQL(_ dialect: SQLDialect) -> String {
        """
        UPDATE push_send SET state = 'publishing', lease_owner = ?, lease_until = ?
        WHERE notification_id IN (
            SELECT notification_id FROM push_send WHERE \(dueScheduleFilter)
            ORDER BY send_at LIMIT ? \(dialect.claimRows))
        RETURNING \(scheduledColumns)
        """
    }

    public func recordDueSchedules(_ sends: [SendRecord], owner: String, now: Date) async throws -> [DeliveryJob] {
        guard !sends.isEmpty else { return [] }
        return try await database.transaction { db in
            var pairs: [(SendRecord, [TargetDevice])] = []
            var sent: [SendRecord] = []
            for (appID, group) in Dictionary(grouping: sends, by: \.appID) {
                let devices = try await Self.activeDevices(of: group.map(\.recipientID), appID: appID, db)
                for send in group {
                    // Still ours (not taken over after a lapsed lease): it becomes sent exactly once.
                    let ours = try await db.execute(
                        """
                        UPDATE push_send SET state = 'sent', lease_owner = NULL, lease_until = NULL
                        WHERE notification_id = ? AND state = 'publishing' AND lease_owner = ?
                        """, [send.notificationID, owner])
                    guard ours == 1 else { continue }
                    sent.append(send)
                    var due = send
                    due.createdAt = now
                    pairs.append((due, Self.targeted(devices[send.recipientID] ?? [], by: send)))
                }
            }
            let jobs = try await Self.insertJobs(pairs, db)
            try await Self.wake(for: jobs, db)
            try await SQLWebhookRepository.enqueueScheduleSent(sent, now: now, db)
            return jobs
        }
    }

    /// Makes every claimed scheduled send claimable at once (run at start on SQLite, where no other process can hold
    /// one). They stay `publishing`: the store may have shown them already, so they can no longer be cancelled.
    static let releaseAllClaimedSchedules = """
        UPDATE push_send SET lease_owner = NULL, lease_until = 0 WHERE state = 'publishing'
        """

    public func releaseSchedules(_ notificationIDs: [String], owner: String, claimableAfter: Date) async throws {
        guard !notificationIDs.isEmpty else { return }
        let list = String(decoding: try JSONEncoder().encode(notificationIDs), as: UTF8.self)
        // Still `publishing`: the store may have shown them (an answer lost on the way), so a cancel now says
        // "already sent"; any replica claims them again once the lease without owner lapses.
        _ = try await database.execute(
            """
            UPDATE push_send SET lease_owner = NULL, lease_until = ?
            WHERE notification_id IN (\(database.dialect.jsonTextArray)) AND state = 'publishing' AND lease_owner = ?
            """, [claimableAfter.millisecondsSince1970, list, owner])
    }

    public func cancel(notificationID: String, clientID: String, now: Date) async throws -> CancelOutcome {
        // The one statement that decides: a replica's claim (state 'publishing') and this cancel cannot both win.
        let cancelled = try await database.execute(
            """
            UPDATE push_send SET state = 'cancelled'
            WHERE notification_id = ? AND client_id = ? AND state = 'scheduled'
            """, [notificationID, clientID])
        if cancelled == 1 { return .cancelled }
        guard
            let state = try await database.readOne(
                "SELECT state FROM push_send WHERE notification_id = ? AND client_id = ?", [notificationID, clientID]
            )?.decode(0, as: String.self)
        else { return .notFound }
        return state == "cancelled" ? .alreadyCancelled : .alreadySent
    }

    public func sendState(notificationID: String, clientID: String) async throws -> (
        state: Push.SendState, sendAt: Date?
    )? {
        guard
            let row = try await database.readOne(
                "SELECT state, send_at FROM push_send WHERE notification_id = ? AND client_id = ?",
                [notificationID, clientID])
        else { return nil }
        let stored: String = try row.decode(0)
        // Being published is "sent" to the caller: its sending started, it can no longer be cancelled.
        let state: Push.SendState = stored == "publishing" ? .sent : Push.SendState(rawValue: stored)
        return (state, try row.decode(1, as: Int64?.self).map(Date.init(millisecondsSince1970:)))
    }

    /// A send read with ``scheduledColumns``: its devices are resolved when it is due, so ``SendRecord/deviceIDs``
    /// is left for the caller.
    static func scheduledSend(from row: SQLRow) throws -> SendRecord {
        var send = SendRecord(
            notificationID: try row.decode(0), clientID: try row.decode(1), recipientID: try row.decode(2),
            expiresAt: Date(millisecondsSince1970: try row.decode(3)),
            createdAt: Date(millisecondsSince1970: try row.decode(4)),
            traceParent: (try? row.decode(10, as: String?.self)).flatMap(TraceParent.init), appID: try row.decode(5),
            priority: try row.decode(6, as: String?.self).map(Push.Priority.init(rawValue:)),
            collapseID: try row.decode(7, as: String?.self),
            sendAt: try row.decode(8, as: Int64?.self).map(Date.init(millisecondsSince1970:)))
        send.sealedOnly = try row.decode(9, as: Int.self) != 0
        return send
    }
}
