import ServiceCore
import SharedModels

/// The `webhooks.*` methods (scope `webhooks:manage`), each acting on the calling client's own endpoints.
struct WebhookMethods: Sendable {
    let endpoints: WebhookEndpoints

    func register(on methods: inout MethodRegistry) {
        let manage = MethodAccess.scope(Scope.webhooksManage)
        methods.register(Webhooks.Create.self, requires: manage) { params, client, _ in
            try await endpoints.create(clientID: client.subject, apps: client.apps, params: params)
        }
        methods.register(Webhooks.List.self, requires: manage) { _, client, _ in
            try await endpoints.list(clientID: client.subject)
        }
        methods.register(Webhooks.Delete.self, requires: manage) { params, client, _ in
            try await endpoints.delete(clientID: client.subject, webhookID: params.webhookId)
            return Empty()
        }
        methods.register(Webhooks.Test.self, requires: manage) { params, client, _ in
            try await endpoints.test(clientID: client.subject, webhookID: params.webhookId)
        }
        methods.register(Webhooks.RotateSecret.self, requires: manage) { params, client, _ in
            try await endpoints.rotateSecret(clientID: client.subject, webhookID: params.webhookId)
        }
        methods.register(Webhooks.Replay.self, requires: manage) { params, client, _ in
            try await endpoints.replay(clientID: client.subject, params: params)
        }
    }
}
