import Foundation
import SharedModels
import TestSupport
import Testing

@testable import DispatchService

extension DispatchHarness {
    /// A push-dispatch with remote `providers` whose webhooks may go to 127.0.0.1 over http:// (listed, development)
    /// and whose sender is paced for tests: polls every 50 ms, retries after 100 ms (doubling, at most 400 ms), gives an
    /// attempt 500 ms.
    static func withWebhooks(
        _ providers: [any RemotePushProvider] = [], clock: LiveClock = LiveClock(),
        _ adjust: (inout WebhookConfiguration) -> Void = { _ in }
    ) async throws -> DispatchHarness {
        var configuration = configuration(delivery: .fast())
        configuration.webhooks.allowedHosts = ["127.0.0.1"]
        configuration.webhooks.pollInterval = .milliseconds(50)
        configuration.webhooks.firstBackoff = .milliseconds(100)
        configuration.webhooks.maxBackoff = .milliseconds(400)
        configuration.webhooks.attemptTimeout = .milliseconds(500)
        configuration.webhooks.lookback = .seconds(2)
        adjust(&configuration.webhooks)
        return try await DispatchHarness(configuration: configuration, providers: providers, clock: clock)
    }

    /// Calls a `webhooks.*` method as backend client `client` (scope `webhooks:manage`).
    func webhooks<M: RPCMethod>(_ method: M.Type, _ params: M.Params, as client: String = "app-backend")
        async throws -> M.Result
    {
        try await self.client.call(
            method, params,
            token: try await signer.token(subject: client, scopes: [Scope.pushSend, Scope.webhooksManage]))
    }

    /// Creates an endpoint at `url` for `events` (default: all) as `client`.
    func createWebhook(
        _ url: String, events: [Webhooks.EventType] = Webhooks.EventType.subscribable, as client: String = "app-backend"
    ) async throws -> Webhooks.Create.Result {
        try await webhooks(Webhooks.Create.self, .init(url: url, events: events), as: client)
    }

    /// Runs the delivery workers and the webhook sender for the duration of `body`.
    func runningWebhooks(_ body: () async throws -> Void) async throws {
        try await RunningWorkers.with(components.workers + [components.webhookSender], body)
    }
}
