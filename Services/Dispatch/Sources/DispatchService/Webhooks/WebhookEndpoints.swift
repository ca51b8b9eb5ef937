import Crypto
import Foundation
import SharedModels

/// The `webhooks.*` logic: a client's endpoints, each seen and changed by that client only (another client's endpoint
/// is "not found", so ids reveal nothing).
struct WebhookEndpoints: Sendable {
    let repository: SQLWebhookRepository
    let secrets: WebhookSecretSealer
    let configuration: WebhookConfiguration
    /// The app a client bound to no app acts for (`SECUREPUSH_DEFAULT_APP`).
    let defaultAppID: String
    let now: @Sendable () -> Date
    /// Called after an event was recorded (wakes the sender).
    let recorded: @Sendable () -> Void

    /// Most endpoints one client may have.
    static let maxPerClient = 20
    /// Longest description accepted.
    static let maxDescriptionLength = 200

    func create(clientID: String, apps: [String], params: Webhooks.Create.Params) async throws -> Webhooks.Create.Result
    {
        let url = try WebhookURL(params.url, configuration: configuration)
        let events = try Self.checked(params.events)
        if let description = params.description, description.count > Self.maxDescriptionLength {
            throw DispatchError.invalidField(
                "description", "must be at most \(Self.maxDescriptionLength) characters")
        }
        guard try await repository.endpoints(clientID: clientID).count < Self.maxPerClient else {
            throw DispatchError.conflict(
                "this client has \(Self.maxPerClient) webhook endpoints, the most it may have: delete one first")
        }
        let secret = WebhookSecret.generate()
        var endpoint = WebhookEndpointRecord(
            id: "wh_" + Data(SymmetricKey(size: .bits128).withUnsafeBytes { Array($0) }).base64URLEncodedString(),
            clientID: clientID, appIDs: apps.isEmpty ? [defaultAppID] : apps.sorted(), url: url.url.absoluteString,
            events: events, description: params.description, sealedSecret: "", createdAt: now())
        endpoint.sealedSecret = try secrets.seal(secret, for: endpoint)
        try await repository.create(endpoint)
        return Webhooks.Create.Result(webhookId: endpoint.id, secret: secret.text)
    }

    func list(clientID: String) async throws -> Webhooks.List.Result {
        let current = now()
        return Webhooks.List.Result(
            webhooks: try await repository.endpoints(clientID: clientID).map { $0.info(now: current) })
    }

    func delete(clientID: String, webhookID: String) async throws {
        guard try await repository.delete(id: webhookID, clientID: clientID) else { throw Self.notFound }
    }

    func rotateSecret(clientID: String, webhookID: String) async throws -> Webhooks.RotateSecret.Result {
        let endpoint = try await existing(webhookID, clientID: clientID)
        let secret = WebhookSecret.generate()
        let until = now().adding(configuration.secretOverlap)
        guard
            try await repository.rotate(
                id: endpoint.id, clientID: clientID, sealedSecret: try secrets.seal(secret, for: endpoint),
                previousUntil: until)
        else { throw Self.notFound }
        return Webhooks.RotateSecret.Result(secret: secret.text, previousSecretExpiresAt: until)
    }

    /// Records a `webhook.test` event for the endpoint (disabled or not) and returns its id.
    func test(clientID: String, webhookID: String) async throws -> Webhooks.Test.Result {
        let endpoint = try await existing(webhookID, clientID: clientID)
        let current = now()
        let eventID = WebhookEventFeed.randomEventID()
        let event = Webhooks.Event(
            type: .webhookTest, timestamp: current, data: Webhooks.EventData(webhookId: endpoint.id))
        _ = try await repository.enqueue([
            WebhookMessage(
                endpointID: endpoint.id, eventID: eventID, type: .webhookTest, body: WebhookEventFeed.body(of: event),
                createdAt: current)
        ])
        recorded()
        return Webhooks.Test.Result(eventId: eventID)
    }

    func replay(clientID: String, params: Webhooks.Replay.Params) async throws -> Webhooks.Replay.Result {
        let endpoint = try await existing(params.webhookId, clientID: clientID)
        let current = now()
        let oldest = current.adding(.zero - configuration.retention)
        guard params.since >= oldest.addingTimeInterval(-60) else {
            throw DispatchError.invalidField(
                "since",
                "must be within the last \(Int(configuration.retention.timeInterval)) seconds "
                    + "(SECUREPUSH_WEBHOOK_RETENTION): older events are no longer kept")
        }
        let count = try await repository.replay(endpointID: endpoint.id, since: params.since, now: current)
        if count > 0 { recorded() }
        return Webhooks.Replay.Result(events: count)
    }

    private func existing(_ id: String, clientID: String) async throws -> WebhookEndpointRecord {
        guard let endpoint = try await repository.endpoint(id: id, clientID: clientID) else { throw Self.notFound }
        return endpoint
    }

    static let notFound = RPCError.notFound("webhook")

    /// `events` deduplicated; `-32602` naming `events` (none, or too many) or `events[i]` (a type no endpoint can
    /// subscribe to).
    static func checked(_ events: [Webhooks.EventType]) throws(DispatchError) -> Set<Webhooks.EventType> {
        guard !events.isEmpty else {
            throw .invalidField(
                "events",
                "must name at least one of " + Webhooks.EventType.subscribable.map(\.rawValue).joined(separator: ", "))
        }
        guard events.count <= 32 else { throw .invalidField("events", "must name at most 32 event types") }
        for (index, event) in events.enumerated() where !Webhooks.EventType.subscribable.contains(event) {
            throw .invalidField(
                "events[\(index)]",
                "'\(event.rawValue.prefix(64))' is not an event type; use one of "
                    + Webhooks.EventType.subscribable.map(\.rawValue).joined(separator: ", "))
        }
        return Set(events)
    }
}
