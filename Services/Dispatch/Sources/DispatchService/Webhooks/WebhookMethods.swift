import Foundation
import ServiceCore
import SharedModels

/// The `webhooks.*` methods (scope `webhooks:manage`), each acting on the calling client's own endpoints.
struct WebhookMethods: Sendable {
    let endpoints: WebhookEndpoints
    /// Where endpoint changes are recorded.
    var audit: AuditTrail?

    /// Records `type` about `webhookID` for `client`.
    private func record(_ type: String, client: String, webhookID: String, _ extra: AuditFields = [:]) {
        audit?.record(type, extra.merging(["client": .text(client), "webhook": .text(webhookID)]))
    }

    func register(on methods: inout MethodRegistry) {
        let manage = MethodAccess.scope(Scope.webhooksManage)
        methods.register(Webhooks.Create.self, requires: manage) { params, client, _ in
            let created = try await endpoints.create(clientID: client.subject, apps: client.apps, params: params)
            // The URL's host only: its path and query may carry the receiver's own secrets.
            record(
                "webhooks.created", client: client.subject, webhookID: created.webhookId,
                [
                    "host": .text(URLComponents(string: params.url)?.host ?? ""),
                    "events": .texts(params.events.map(\.rawValue)),
                ])
            return created
        }
        methods.register(Webhooks.List.self, requires: manage) { _, client, _ in
            try await endpoints.list(clientID: client.subject)
        }
        methods.register(Webhooks.Delete.self, requires: manage) { params, client, _ in
            try await endpoints.delete(clientID: client.subject, webhookID: params.webhookId)
            record("webhooks.deleted", client: client.subject, webhookID: params.webhookId)
            return Empty()
        }
        methods.register(Webhooks.Test.self, requires: manage) { params, client, _ in
            try await endpoints.test(clientID: client.subject, webhookID: params.webhookId)
        }
        methods.register(Webhooks.RotateSecret.self, requires: manage) { params, client, _ in
            let rotated = try await endpoints.rotateSecret(clientID: client.subject, webhookID: params.webhookId)
            record("webhooks.secret_rotated", client: client.subject, webhookID: params.webhookId)
            return rotated
        }
        methods.register(Webhooks.Replay.self, requires: manage) { params, client, _ in
            let replayed = try await endpoints.replay(clientID: client.subject, params: params)
            record(
                "webhooks.replayed", client: client.subject, webhookID: params.webhookId,
                ["events": .integer(Int64(replayed.events))])
            return replayed
        }
    }
}
