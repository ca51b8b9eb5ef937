import Foundation
import ServiceCore
import SharedModels

/// The webhook tables on SQLite or PostgreSQL, each operation written once: endpoints, the events waiting for (or
/// kept after) delivery, and the event feed's cursors.
struct SQLWebhookRepository: Sendable {
    let database: any SQLDatabase

    static let endpointColumns = """
        id, client_id, app_ids, url, events, description, secret, previous_secret, previous_secret_until, created_at,
        failing_since, disabled_at
        """

    // MARK: Endpoints

    func create(_ endpoint: WebhookEndpointRecord) async throws {
        _ = try await database.execute(
            """
            INSERT INTO webhook_endpoint (\(Self.endpointColumns))
            VALUES (?, ?, ?, ?, ?, ?, ?, NULL, NULL, ?, NULL, NULL)
            """,
            [
                endpoint.id, endpoint.clientID, try SQLAppRepository.json(endpoint.appIDs), endpoint.url,
                try SQLAppRepository.json(endpoint.events.map(\.rawValue).sorted()), endpoint.description,
                endpoint.sealedSecret,
                endpoint.createdAt.millisecondsSince1970,
            ])
    }

    /// The client's endpoints, oldest first.
    func endpoints(clientID: String) async throws -> [WebhookEndpointRecord] {
        try await database.read(
            "SELECT \(Self.endpointColumns) FROM webhook_endpoint WHERE client_id = ? ORDER BY created_at, id",
            [clientID]
        ).map(Self.endpoint(from:))
    }

    /// The client's endpoint `id` (another client's is not found).
    func endpoint(id: String, clientID: String) async throws -> WebhookEndpointRecord? {
        try await database.readOne(
            "SELECT \(Self.endpointColumns) FROM webhook_endpoint WHERE id = ? AND client_id = ?", [id, clientID]
        ).map(Self.endpoint(from:))
    }

    /// Every endpoint, disabled ones too: their events are recorded and wait until a test enables them again (the
    /// event feed matches events against them).
    func allEndpoints() async throws -> [WebhookEndpointRecord] {
        try await database.read("SELECT \(Self.endpointColumns) FROM webhook_endpoint ORDER BY id", []).map(
            Self.endpoint(from:))
    }

    /// Deletes the client's endpoint and its events; `false` when there was none.
    func delete(id: String, clientID: String) async throws -> Bool {
        try await database.transaction { db in
            guard
                try await db.execute("DELETE FROM webhook_endpoint WHERE id = ? AND client_id = ?", [id, clientID]) > 0
            else { return false }
            // SQLite enforces no foreign keys here: the endpoint's events go explicitly.
            _ = try await db.execute("DELETE FROM webhook_message WHERE endpoint_id = ?", [id])
            return true
        }
    }

    /// Replaces the secret; the current one becomes the previous one, signing until `previousUntil`.
    func rotate(id: String, clientID: String, sealedSecret: String, previousUntil: Date) async throws -> Bool {
        try await database.execute(
            """
            UPDATE webhook_endpoint SET previous_secret = secret, previous_secret_until = ?, secret = ?
            WHERE id = ? AND client_id = ?
            """, [previousUntil.millisecondsSince1970, sealedSecret, id, clientID]) > 0
    }

    /// Records a failed attempt on the endpoint: since when it has been failing. Failures belong to one episode while
    /// none is more than `continuousWithin` after the previous one; a later one starts a new episode.
    func markFailing(id: String, now: Date, continuousWithin gap: Duration) async throws -> Date? {
        let nowMS = now.millisecondsSince1970
        _ = try await database.execute(
            """
            UPDATE webhook_endpoint SET
                failing_since = CASE WHEN failing_since IS NULL OR last_failure_at IS NULL OR last_failure_at < ?
                    THEN ? ELSE failing_since END,
                last_failure_at = ?
            WHERE id = ?
            """, [now.adding(.zero - gap).millisecondsSince1970, nowMS, nowMS, id])
        return try await database.readOne("SELECT failing_since FROM webhook_endpoint WHERE id = ?", [id])?
            .decode(0, as: Int64?.self).map(Date.init(millisecondsSince1970:))
    }

    /// Records a successful attempt: the endpoint is no longer failing, and enabled again if it was disabled.
    func markSucceeded(id: String) async throws {
        _ = try await database.execute(
            """
            UPDATE webhook_endpoint SET failing_since = NULL, last_failure_at = NULL, disabled_at = NULL
            WHERE id = ? AND (failing_since IS NOT NULL OR disabled_at IS NOT NULL)
            """, [id])
    }

    /// Disables the endpoint; `true` when this call did (once, whichever replica sees it first).
    func disable(id: String, now: Date) async throws -> Bool {
        try await database.execute(
            "UPDATE webhook_endpoint SET disabled_at = ? WHERE id = ? AND disabled_at IS NULL",
            [now.millisecondsSince1970, id]) > 0
    }

    // MARK: Events

    /// Adds events (an event already recorded for its endpoint is left as it is); returns how many were new.
    func enqueue(_ messages: [WebhookMessage]) async throws -> Int {
        guard !messages.isEmpty else { return 0 }
        return try await database.transaction { db in try await Self.enqueue(messages, db) }
    }

    /// ``enqueue(_:)`` inside a transaction the caller holds (a change and its event commit together).
    static func enqueue(_ messages: [WebhookMessage], _ db: any SQLTransaction) async throws -> Int {
        var added = 0
        for message in messages {
            added += try await db.execute(
                """
                INSERT INTO webhook_message (
                    endpoint_id, event_id, event_type, body, created_at, status, attempts, next_attempt_at)
                VALUES (?, ?, ?, ?, ?, 'pending', 0, ?)
                ON CONFLICT DO NOTHING
                """,
                [
                    message.endpointID, message.eventID, message.type.rawValue, message.body,
                    message.createdAt.millisecondsSince1970, message.createdAt.millisecondsSince1970,
                ])
        }
        return added
    }

    /// Records `schedule.sent` for each of `sends` (scheduled sends that came due), inside the transaction that marks
    /// them sent: the event is recorded exactly when the send is. Reads the senders' endpoints only (usually none).
    static func enqueueScheduleSent(_ sends: [SendRecord], now: Date, _ db: any SQLTransaction) async throws {
        var endpoints: [String: [WebhookEndpointRecord]] = [:]
        for clientID in Set(sends.map(\.clientID)) {
            endpoints[clientID] = try await db.query(
                "SELECT \(endpointColumns) FROM webhook_endpoint WHERE client_id = ?",
                [clientID]
            ).map(endpoint(from:))
        }
        guard endpoints.values.contains(where: { !$0.isEmpty }) else { return }
        var messages: [WebhookMessage] = []
        for send in sends {
            let change = WebhookEventFeed.Change(
                time: now.millisecondsSince1970, orderKey: send.notificationID, eventKey: send.notificationID,
                clientID: send.clientID, appID: send.appID,
                event: Webhooks.Event(
                    type: .scheduleSent, timestamp: now,
                    data: Webhooks.EventData(
                        notificationId: send.notificationID, recipientId: send.recipientID, appId: send.appID,
                        sendAt: send.sendAt)))
            messages += WebhookEventFeed.messages(for: change, endpoints: endpoints[send.clientID] ?? [])
        }
        _ = try await enqueue(messages, db)
    }

    /// Claims up to `limit` due events under a lease for `owner`, none of `excludingEndpoints`' and none of a disabled
    /// endpoint's but its tests (on PostgreSQL, replicas claiming at once take different rows; a claim whose owner
    /// died is claimed again when its lease lapses).
    func claimDue(
        owner: String, now: Date, leaseUntil: Date, limit: Int, excludingEndpoints excluded: [String] = []
    ) async throws -> [ClaimedWebhookMessage] {
        let nowMS = now.millisecondsSince1970
        let lock = database.dialect == .postgresql ? "FOR UPDATE OF m SKIP LOCKED" : ""
        let claimed = try await database.write(
            """
            UPDATE webhook_message SET lease_owner = ?, lease_until = ?
            WHERE sequence IN (
                SELECT m.sequence FROM webhook_message m JOIN webhook_endpoint e ON e.id = m.endpoint_id
                WHERE m.status = 'pending' AND m.next_attempt_at <= ? AND (m.lease_until IS NULL OR m.lease_until <= ?)
                    AND (e.disabled_at IS NULL OR m.event_type = 'webhook.test')
                    AND m.endpoint_id NOT IN (\(database.dialect.jsonTextArray))
                ORDER BY m.next_attempt_at LIMIT ? \(lock))
            RETURNING sequence, endpoint_id, event_id, event_type, body, attempts
            """, [owner, leaseUntil.millisecondsSince1970, nowMS, nowMS, try SQLAppRepository.json(excluded), limit])
        return try claimed.map { row in
            ClaimedWebhookMessage(
                sequence: try row.decode(0), endpointID: try row.decode(1), eventID: try row.decode(2),
                type: Webhooks.EventType(rawValue: try row.decode(3)), body: try row.decode(4),
                attempts: try row.decode(5))
        }.sorted { $0.sequence < $1.sequence }
    }

    /// Makes every claimed event claimable at once (run at start on SQLite, where no other process can hold one).
    static let releaseAllClaimed = """
        UPDATE webhook_message SET lease_owner = NULL, lease_until = NULL WHERE lease_owner IS NOT NULL
        """

    /// The endpoint a claimed event goes to, whoever owns it (`nil`: deleted meanwhile).
    func endpoint(id: String) async throws -> WebhookEndpointRecord? {
        try await database.readOne("SELECT \(Self.endpointColumns) FROM webhook_endpoint WHERE id = ?", [id])
            .map(Self.endpoint(from:))
    }

    /// Records an attempt's outcome on an event still leased to `owner`: `delivered`, `failed` (given up), or
    /// `pending` again at `nextAttempt`.
    func record(
        _ sequence: Int64, owner: String, status: String, nextAttempt: Date?, error: String?, now: Date
    ) async throws {
        _ = try await database.execute(
            """
            UPDATE webhook_message SET status = ?, attempts = attempts + 1, next_attempt_at = ?, last_error = ?,
                delivered_at = ?, lease_owner = NULL, lease_until = NULL
            WHERE sequence = ? AND lease_owner = ?
            """,
            [
                status, (nextAttempt ?? now).millisecondsSince1970, error,
                status == "delivered" ? now.millisecondsSince1970 : nil, sequence, owner,
            ])
    }

    /// Leaves a claimed event for later without counting an attempt (its endpoint is disabled).
    func release(_ sequence: Int64, owner: String, until: Date) async throws {
        _ = try await database.execute(
            """
            UPDATE webhook_message SET next_attempt_at = ?, lease_owner = NULL, lease_until = NULL
            WHERE sequence = ? AND lease_owner = ?
            """, [until.millisecondsSince1970, sequence, owner])
    }

    /// Queues every kept event of the endpoint created at or after `since` again (same event ids, attempts from 0);
    /// returns how many.
    func replay(endpointID: String, since: Date, now: Date) async throws -> Int {
        try await database.execute(
            """
            UPDATE webhook_message SET status = 'pending', attempts = 0, next_attempt_at = ?, last_error = NULL,
                lease_owner = NULL, lease_until = NULL
            WHERE endpoint_id = ? AND created_at >= ?
            """, [now.millisecondsSince1970, endpointID, since.millisecondsSince1970])
    }

    /// Deletes events created before `cutoff`; returns how many.
    func purge(before cutoff: Date) async throws -> Int {
        try await database.execute(
            "DELETE FROM webhook_message WHERE created_at < ?", [cutoff.millisecondsSince1970])
    }

    /// Events per status (the dashboard's backlog), over every endpoint.
    func countsByStatus() async throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for row in try await database.read("SELECT status, COUNT(*) FROM webhook_message GROUP BY status", []) {
            counts[try row.decode(0)] = try row.decode(1)
        }
        return counts
    }

    // MARK: Rows

    static func endpoint(from row: SQLRow) throws -> WebhookEndpointRecord {
        let decoder = JSONDecoder()
        return WebhookEndpointRecord(
            id: try row.decode(0), clientID: try row.decode(1),
            appIDs: try decoder.decode([String].self, from: Data((try row.decode(2, as: String.self)).utf8)),
            url: try row.decode(3),
            events: Set(
                try decoder.decode([String].self, from: Data((try row.decode(4, as: String.self)).utf8)).map(
                    Webhooks.EventType.init(rawValue:))),
            description: try row.decode(5), sealedSecret: try row.decode(6), sealedPreviousSecret: try row.decode(7),
            previousSecretUntil: try row.decode(8, as: Int64?.self).map(Date.init(millisecondsSince1970:)),
            createdAt: Date(millisecondsSince1970: try row.decode(9)),
            failingSince: try row.decode(10, as: Int64?.self).map(Date.init(millisecondsSince1970:)),
            disabledAt: try row.decode(11, as: Int64?.self).map(Date.init(millisecondsSince1970:)))
    }
}

/// An event for one endpoint, as the event feed (or `webhooks.test`, or a scheduled send) records it.
struct WebhookMessage: Sendable, Hashable {
    var endpointID: String
    /// The `webhook-id` (`msg_…`): the same for every attempt and replay.
    var eventID: String
    var type: Webhooks.EventType
    /// The JSON body, `{type, timestamp, data}`.
    var body: String
    var createdAt: Date
}

/// An event claimed for an attempt.
struct ClaimedWebhookMessage: Sendable, Hashable {
    var sequence: Int64
    var endpointID: String
    var eventID: String
    var type: Webhooks.EventType
    var body: String
    /// Attempts before this one.
    var attempts: Int
}
