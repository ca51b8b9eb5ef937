import Crypto
import Foundation
import Logging
import ServiceCore
import SharedModels

/// Turns what push-dispatch records into webhook events, without touching the send path: every look reads the
/// deliveries that finished (`delivery.sent`, `.failed`, `.collapsed`), the devices providers deactivated
/// (`device.deactivated`) and the notifications whose time ran out (`notification.expired`) since its last look, and
/// the store's receipts (`notification.fetched`, through `store.receiptsSince`), and records one event per subscribed
/// endpoint. Each look reaches `lookback` further back than the last one ended (a slow transaction's change is still
/// seen); an event is recorded once however often it is seen (its id is derived from what happened, and this process
/// remembers what it recorded within the window, so seeing it again writes nothing). A source no endpoint subscribes
/// to is not read; with no endpoint nothing is. Each page is its own short transaction, and the store is called
/// outside any. On PostgreSQL every replica looks; what two replicas both see is recorded once.
struct WebhookEventFeed: Sendable {
    let database: any SQLDatabase
    let repository: SQLWebhookRepository
    /// Reads the store's receipts (`store.receiptsSince`), for `notification.fetched`; `nil` sends none.
    let receipts: (@Sendable (_ after: Int64, _ limit: Int) async throws -> Store.ReceiptsSince.Result)?
    let configuration: WebhookConfiguration
    let now: @Sendable () -> Date
    let logger: Logger
    /// The events this process recorded within the last window, by endpoint and event id.
    let recent = RecentlyRecorded()

    /// Most rows read per page.
    static let pageSize = 500

    /// One look at every source; returns how many events were recorded.
    @discardableResult
    func run() async throws -> Int {
        let endpoints = try await repository.allEndpoints()
        guard !endpoints.isEmpty else { return 0 }
        let upTo = now()
        recent.forget(before: upTo.adding(.zero - configuration.lookback - configuration.lookback))
        // Nothing older than the oldest endpoint (or the retention) is wanted, however old a cursor is.
        let oldest = max(endpoints.map(\.createdAt).min()!, upTo.adding(.zero - configuration.retention))
        let wanted = Set(endpoints.flatMap(\.events))
        var recorded = 0
        for source in Source.allCases where !wanted.isDisjoint(with: source.types) {
            let from = try await start(of: source.rawValue, oldest: oldest)
            var after: (time: Int64, key: any SQLBindable & Sendable) = (from.millisecondsSince1970, source.firstKey)
            while true {
                let rows = try await database.read(
                    source.query(database.dialect),
                    [after.time, upTo.millisecondsSince1970, after.time, after.time, after.key, Self.pageSize])
                var messages: [WebhookMessage] = []
                for row in rows {
                    let change = try source.change(from: row)
                    after = (change.time, change.orderKey)
                    messages += Self.messages(for: change, endpoints: endpoints)
                }
                recorded += try await record(messages)
                guard rows.count == Self.pageSize else { break }
            }
            try await saveCursor(source.rawValue, upTo.millisecondsSince1970)
        }
        if let receipts, wanted.contains(.notificationFetched) {
            recorded += try await lookAtReceipts(receipts, endpoints: endpoints, oldest: oldest)
        }
        return recorded
    }

    /// Where a look at `source` starts: `lookback` before its cursor (or before `oldest`).
    private func start(of source: String, oldest: Date) async throws -> Date {
        let cursor = try await database.readOne("SELECT position FROM webhook_cursor WHERE source = ?", [source])?
            .decode(0, as: Int64.self)
        return max(cursor.map(Date.init(millisecondsSince1970:)) ?? oldest, oldest).adding(
            .zero - configuration.lookback)
    }

    /// Records the messages this process has not recorded lately (one transaction); returns how many were new.
    private func record(_ messages: [WebhookMessage]) async throws -> Int {
        let fresh = recent.unseen(messages)
        guard !fresh.isEmpty else { return 0 }
        let added = try await repository.enqueue(fresh)
        recent.remember(fresh)
        return added
    }

    /// Moves a cursor forward (never back: two replicas may save theirs in either order).
    private func saveCursor(_ source: String, _ position: Int64) async throws {
        _ = try await database.execute(
            """
            INSERT INTO webhook_cursor (source, position) VALUES (?, ?)
            ON CONFLICT (source) DO UPDATE SET position = CASE
                WHEN excluded.position > webhook_cursor.position THEN excluded.position ELSE webhook_cursor.position END
            """, [source, position])
    }

    /// `notification.fetched`: the store's receipts since the cursor (the store's own clock; read again from
    /// `lookback` earlier each time), each matched with its send here (a send already purged makes no event). The
    /// store is called outside any transaction.
    private func lookAtReceipts(
        _ receipts: @Sendable (Int64, Int) async throws -> Store.ReceiptsSince.Result,
        endpoints: [WebhookEndpointRecord], oldest: Date
    ) async throws -> Int {
        let source = "receipts"
        var after = try await start(of: source, oldest: oldest).millisecondsSince1970
        var newest = after
        var recorded = 0
        while true {
            let page = try await receipts(after, Self.pageSize)
            let ids = Array(Set(page.receipts.map(\.notificationId)))
            var sends: [String: (clientID: String, appID: String, recipientID: String)] = [:]
            if !ids.isEmpty {
                for row in try await database.read(
                    """
                    SELECT notification_id, client_id, app_id, recipient_id FROM push_send
                    WHERE notification_id IN (\(database.dialect.jsonTextArray))
                    """, [try SQLAppRepository.json(ids)])
                {
                    sends[try row.decode(0)] = (try row.decode(1), try row.decode(2), try row.decode(3))
                }
            }
            var messages: [WebhookMessage] = []
            for receipt in page.receipts {
                guard let send = sends[receipt.notificationId] else { continue }
                let change = Change(
                    time: receipt.fetchedAt.millisecondsSince1970, orderKey: "",
                    eventKey: receipt.notificationId + " " + receipt.deviceId, clientID: send.clientID,
                    appID: send.appID,
                    event: Webhooks.Event(
                        type: .notificationFetched, timestamp: receipt.fetchedAt,
                        data: Webhooks.EventData(
                            notificationId: receipt.notificationId, recipientId: send.recipientID,
                            deviceId: receipt.deviceId, appId: send.appID, fetchedAt: receipt.fetchedAt)))
                messages += Self.messages(for: change, endpoints: endpoints)
            }
            recorded += try await record(messages)
            newest = max(newest, page.next)
            // A full page all of one millisecond would be read again forever: the next page starts after it (more
            // than 500 first fetches in one millisecond would lose the rest; docs/webhooks.md says so).
            guard page.receipts.count == Self.pageSize else { break }
            after = page.next > after ? page.next : after + 1
        }
        try await saveCursor(source, newest)
        return recorded
    }

    /// The events `change` makes for the endpoints that receive it.
    static func messages(for change: Change, endpoints: [WebhookEndpointRecord]) -> [WebhookMessage] {
        let eventID = Self.eventID(for: change.event.type.rawValue + " " + change.eventKey)
        var body: String?
        return endpoints.compactMap { endpoint in
            guard endpoint.receives(change.event.type, appID: change.appID),
                change.clientID.map({ $0 == endpoint.clientID }) ?? true,
                // Times that crossed the wire (the store's receipts) are whole seconds: those get a second's slack.
                change.event.timestamp
                    >= endpoint.createdAt.addingTimeInterval(change.event.type == .notificationFetched ? -1 : 0)
            else { return nil }
            if body == nil { body = Self.body(of: change.event) }
            return WebhookMessage(
                endpointID: endpoint.id, eventID: eventID, type: change.event.type, body: body!,
                createdAt: change.event.timestamp)
        }
    }

    /// The `webhook-id` of the event that `key` names: `msg_` and 22 characters derived from it, so the same change
    /// seen twice (or by two replicas) is one event.
    static func eventID(for key: String) -> String {
        "msg_" + Data(SHA256.hash(data: Data(key.utf8)).prefix(16)).base64URLEncodedString()
    }

    /// A random `webhook-id`, for events that happen once (`webhook.test`).
    static func randomEventID() -> String {
        "msg_" + Data(SymmetricKey(size: .bits128).withUnsafeBytes { Array($0) }).base64URLEncodedString()
    }

    /// The JSON body of `event`: `{type, timestamp, data}`, keys sorted.
    static func body(of event: Webhooks.Event) -> String {
        let encoder = RPCCodec.makeEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(event)) ?? Data("{}".utf8), as: UTF8.self)
    }

    /// A provider's error as an event may carry it: URLs and long opaque strings (a push token, a subscription's
    /// endpoint) are cut out, and it is at most 200 characters.
    static func redacted(_ error: String?) -> String? {
        guard var text = error else { return nil }
        for pattern in [#"[a-zA-Z][a-zA-Z0-9+.-]*://[^\s'"]+"#, #"[A-Za-z0-9_\-:+/=]{32,}"#] {
            text = text.replacingOccurrences(of: pattern, with: "[redacted]", options: .regularExpression)
        }
        return String(text.prefix(200))
    }

    /// What happened, as a source reads it.
    struct Change: Sendable {
        /// Orders changes within a source (with ``orderKey``).
        var time: Int64
        var orderKey: any SQLBindable & Sendable
        /// Names the change (with its type): the event's id is derived from it.
        var eventKey: String
        /// Whose event it is: only that client's endpoints receive it (`nil`: every endpoint of the app).
        var clientID: String?
        var appID: String?
        var event: Webhooks.Event
    }

    /// The tables the feed reads, each through an index holding only the rows it wants.
    enum Source: String, CaseIterable, Sendable {
        case deliveries
        case devices
        case expiries

        /// The event types it makes.
        var types: Set<Webhooks.EventType> {
            switch self {
            case .deliveries: [.deliverySent, .deliveryFailed, .deliveryCollapsed]
            case .devices: [.deviceDeactivated]
            case .expiries: [.notificationExpired]
            }
        }

        /// The keyset's starting key (below every row's).
        var firstKey: any SQLBindable & Sendable {
            self == .deliveries ? Int64(0) : ""
        }

        /// Rows changed in (after, upTo], after the keyset (time, key); binds: after, upTo, after, after, key, limit.
        /// On SQLite the deliveries' partial index is named: without statistics the planner would rather walk every
        /// delivery of those statuses by `delivery_by_status`.
        func query(_ dialect: SQLDialect) -> String {
            switch self {
            case .deliveries:
                """
                SELECT d.updated_at, d.notification_id, d.device_id, d.status, d.platform, d.attempts, d.last_error,
                    s.client_id, s.app_id, s.recipient_id, d.sequence
                FROM delivery d \(dialect == .sqlite ? "INDEXED BY delivery_finished_by_time" : "")
                JOIN push_send s ON s.notification_id = d.notification_id
                WHERE d.webhook = 1 AND d.status IN ('sent', 'acknowledged', 'failed', 'collapsed')
                    AND d.updated_at >= ? AND d.updated_at <= ?
                    AND (d.updated_at > ? OR (d.updated_at = ? AND d.sequence > ?))
                ORDER BY d.updated_at, d.sequence LIMIT ?
                """
            case .devices:
                """
                SELECT deactivated_at, id, owner_id, platform, app_id FROM device
                WHERE deactivated_at IS NOT NULL AND deactivated_at >= ? AND deactivated_at <= ?
                    AND (deactivated_at > ? OR (deactivated_at = ? AND id > ?))
                ORDER BY deactivated_at, id LIMIT ?
                """
            case .expiries:
                """
                SELECT expires_at, notification_id, client_id, recipient_id, app_id FROM push_send
                WHERE expires_at >= ? AND expires_at <= ? AND (expires_at > ? OR (expires_at = ? AND notification_id > ?))
                    AND state <> 'cancelled'
                ORDER BY expires_at, notification_id LIMIT ?
                """
            }
        }

        func change(from row: SQLRow) throws -> Change {
            let time: Int64 = try row.decode(0)
            let timestamp = Date(millisecondsSince1970: time)
            switch self {
            case .deliveries:
                let notificationID: String = try row.decode(1)
                let deviceID: String = try row.decode(2)
                let status = DeliveryStatus(rawValue: try row.decode(3))
                let type: Webhooks.EventType =
                    switch status {
                    case .failed: .deliveryFailed
                    case .collapsed: .deliveryCollapsed
                    default: .deliverySent
                    }
                let appID: String = try row.decode(8)
                return Change(
                    time: time, orderKey: try row.decode(10, as: Int64.self), eventKey: notificationID + " " + deviceID,
                    clientID: try row.decode(7), appID: appID,
                    event: Webhooks.Event(
                        type: type, timestamp: timestamp,
                        data: Webhooks.EventData(
                            notificationId: notificationID, recipientId: try row.decode(9), deviceId: deviceID,
                            platform: Platform(rawValue: try row.decode(4)), appId: appID, status: status,
                            attempts: try row.decode(5),
                            error: status == .failed ? WebhookEventFeed.redacted(try row.decode(6)) : nil)))
            case .devices:
                let deviceID: String = try row.decode(1)
                let appID: String = try row.decode(4)
                return Change(
                    time: time, orderKey: deviceID, eventKey: "\(deviceID) \(time)", clientID: nil, appID: appID,
                    event: Webhooks.Event(
                        type: .deviceDeactivated, timestamp: timestamp,
                        data: Webhooks.EventData(
                            recipientId: try row.decode(2), deviceId: deviceID,
                            platform: Platform(rawValue: try row.decode(3)), appId: appID)))
            case .expiries:
                let notificationID: String = try row.decode(1)
                let appID: String = try row.decode(4)
                return Change(
                    time: time, orderKey: notificationID, eventKey: notificationID, clientID: try row.decode(2),
                    appID: appID,
                    event: Webhooks.Event(
                        type: .notificationExpired, timestamp: timestamp,
                        data: Webhooks.EventData(
                            notificationId: notificationID, recipientId: try row.decode(3), appId: appID,
                            expiredAt: timestamp)))
            }
        }
    }
}
