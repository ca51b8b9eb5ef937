import SharedModels

extension SecurePushBackend {
    /// Registers a webhook endpoint for this client's events (`webhooks.create`, scope `webhooks:manage`); the result's
    /// `secret` (`whsec_…`) is shown only here.
    public func createWebhook(_ params: Webhooks.Create.Params) async throws -> Webhooks.Create.Result {
        try await dispatch.call(Webhooks.Create.self, params, token: try await accessToken())
    }

    /// This client's webhook endpoints (`webhooks.list`).
    public func webhooks() async throws -> [Webhooks.WebhookInfo] {
        try await dispatch.call(Webhooks.List.self, Empty(), token: try await accessToken()).webhooks
    }

    /// Removes an endpoint and its waiting events (`webhooks.delete`).
    public func deleteWebhook(webhookId: String) async throws {
        _ = try await dispatch.call(Webhooks.Delete.self, .init(webhookId: webhookId), token: try await accessToken())
    }

    /// Queues a `webhook.test` event to the endpoint (`webhooks.test`); returns its `webhook-id`.
    public func testWebhook(webhookId: String) async throws -> String {
        try await dispatch.call(Webhooks.Test.self, .init(webhookId: webhookId), token: try await accessToken())
            .eventId
    }

    /// A new secret for the endpoint (`webhooks.rotateSecret`); the old one signs beside it until the result's
    /// `previousSecretExpiresAt`.
    public func rotateWebhookSecret(webhookId: String) async throws -> Webhooks.RotateSecret.Result {
        try await dispatch.call(
            Webhooks.RotateSecret.self, .init(webhookId: webhookId), token: try await accessToken())
    }

    /// Sends the endpoint's kept events since `since` again (`webhooks.replay`); returns how many.
    public func replayWebhook(_ params: Webhooks.Replay.Params) async throws -> Int {
        try await dispatch.call(Webhooks.Replay.self, params, token: try await accessToken()).events
    }
}
