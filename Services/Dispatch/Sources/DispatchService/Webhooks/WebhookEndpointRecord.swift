import Foundation
import SharedModels

/// One row of `webhook_endpoint`: an endpoint a client registered, its secrets sealed with the apps key.
struct WebhookEndpointRecord: Sendable, Hashable {
    /// `wh_…`.
    var id: String
    /// The client that created it: it sees only this client's events (and its apps' devices).
    var clientID: String
    /// The apps whose events it receives: the client's apps when it was created.
    var appIDs: [String]
    var url: String
    var events: Set<Webhooks.EventType>
    var description: String?
    /// The current secret, sealed.
    var sealedSecret: String
    /// The secret before the last rotation, sealed, and until when it keeps signing.
    var sealedPreviousSecret: String?
    var previousSecretUntil: Date?
    var createdAt: Date
    var failingSince: Date?
    var disabledAt: Date?

    /// The context its secrets are sealed with: a sealed secret copied onto another endpoint does not open.
    var sealingContext: String { "webhook:" + id }

    /// Whether it receives `type` events of `appID` (`webhook.test` always). A disabled endpoint's events are
    /// recorded too: they wait until it is enabled again.
    func receives(_ type: Webhooks.EventType, appID: String?) -> Bool {
        guard type != .webhookTest else { return true }
        guard events.contains(type) else { return false }
        return appID.map(appIDs.contains) ?? true
    }

    /// As `webhooks.list` shows it.
    func info(now: Date) -> Webhooks.WebhookInfo {
        Webhooks.WebhookInfo(
            webhookId: id, url: url, events: events.sorted { $0.rawValue < $1.rawValue }, description: description,
            appIds: appIDs, state: disabledAt == nil ? "enabled" : "disabled", createdAt: createdAt,
            failingSince: failingSince, disabledAt: disabledAt,
            previousSecretExpiresAt: previousSecretUntil.flatMap { $0 > now ? $0 : nil })
    }
}
