import Foundation
import SharedModels
import TestSupport
import Testing

@testable import DispatchService

/// Signed webhooks (issue 30): endpoints per client, every event type after its action, Standard Webhooks signatures,
/// retries with one `webhook-id`, rotation, disabling, replay, and the address rules.
@Suite("Webhooks")
struct WebhookTests {
    @Test("the Standard Webhooks specification's example signs as published")
    func specificationVector() throws {
        let secret = try #require(WebhookSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"))
        #expect(
            WebhookSignature.header(
                id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_330, body: Data(#"{"test": 2432232314}"#.utf8),
                secrets: [secret]) == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
        #expect(WebhookSecret.generate().text.hasPrefix("whsec_"))
        #expect(WebhookSecret("whsec_short") == nil)
    }

    @Test("create answers a whsec_ secret once; list shows the endpoint without it; another client sees nothing of it")
    func createListIsolation() async throws {
        let harness = try await DispatchHarness.withWebhooks { $0.allowedHosts = nil }
        let created = try await harness.webhooks(
            Webhooks.Create.self,
            .init(
                url: "https://hooks.bank.example/securepush",
                events: [.deliveryFailed, .deliveryFailed, .deviceDeactivated],
                description: "ops alerts"))
        #expect(created.webhookId.hasPrefix("wh_"))
        #expect(created.secret.hasPrefix("whsec_"))
        let listed = try await harness.webhooks(Webhooks.List.self, Empty()).webhooks
        #expect(listed.count == 1)
        #expect(listed.first?.webhookId == created.webhookId)
        #expect(listed.first?.events == [.deliveryFailed, .deviceDeactivated])
        #expect(listed.first?.appIds == ["default"])
        #expect(listed.first?.state == "enabled")
        #expect(listed.first?.description == "ops alerts")
        // The secret is stored sealed, never as given.
        let stored = try await harness.components.sqlite!.read { db in
            try String.fetchOne(db, sql: "SELECT secret FROM webhook_endpoint")
        }
        #expect(stored?.hasPrefix("aes256gcm:") == true)
        #expect(stored?.contains(String(created.secret.dropFirst(6))) == false)

        #expect(try await harness.webhooks(Webhooks.List.self, Empty(), as: "shop").webhooks.isEmpty)
        let id = created.webhookId
        let foreign: [@Sendable () async throws -> Void] = [
            { _ = try await harness.webhooks(Webhooks.Delete.self, .init(webhookId: id), as: "shop") },
            { _ = try await harness.webhooks(Webhooks.Test.self, .init(webhookId: id), as: "shop") },
            { _ = try await harness.webhooks(Webhooks.RotateSecret.self, .init(webhookId: id), as: "shop") },
            { _ = try await harness.webhooks(Webhooks.Replay.self, .init(webhookId: id, since: Date()), as: "shop") },
        ]
        for call in foreign {
            #expect(await expectRPCError(call)?.code == RPCErrorCode.notFound)
        }
        _ = try await harness.webhooks(Webhooks.Delete.self, .init(webhookId: id))
        #expect(try await harness.webhooks(Webhooks.List.self, Empty()).webhooks.isEmpty)
        #expect(
            await expectRPCError { _ = try await harness.webhooks(Webhooks.Delete.self, .init(webhookId: id)) }?.code
                == RPCErrorCode.notFound)
    }

    @Test("webhooks.* need the webhooks:manage scope: a push:send token is -32003")
    func scopeRequired() async throws {
        let harness = try await DispatchHarness.withWebhooks()
        let error = await expectRPCError {
            _ = try await harness.client.call(
                Webhooks.List.self, Empty(), token: try await harness.signer.senderToken())
        }
        #expect(error?.code == RPCErrorCode.forbidden)
    }

    @Test(
        "bad input is -32602 naming the field",
        arguments: [
            ("ftp://hooks.bank.example/x", "url", "https://"),
            ("not a url", "url", "absolute https://"),
            ("https://user:pw@hooks.bank.example/x", "url", "user name"),
            ("https://10.1.2.3/hook", "url", "not a public address"),
            ("https://192.168.1.1/hook", "url", "not a public address"),
            ("https://[::1]/hook", "url", "not a public address"),
            ("https://169.254.169.254/latest/meta-data", "url", "not a public address"),
            ("https://localhost/hook", "url", "not a public address"),
            ("http://hooks.bank.example/x", "url", "must be https://"),
            ("https://hooks.bank.example/" + String(repeating: "a", count: 2_100), "url", "at most 2048"),
        ])
    func badURL(url: String, field: String, message: String) async throws {
        let harness = try await DispatchHarness.withWebhooks { $0.allowedHosts = nil }
        let error = await expectRPCError { _ = try await harness.createWebhook(url) }
        #expect(error?.code == RPCErrorCode.invalidParams)
        #expect(error?.message.contains(field) == true)
        #expect(error?.message.contains(message) == true, "\(error?.message ?? "")")
    }

    @Test("events: none, an unknown type (named by index) and webhook.test are refused; a long description too")
    func badEvents() async throws {
        let harness = try await DispatchHarness.withWebhooks { $0.allowedHosts = nil }
        let url = "https://hooks.bank.example/x"
        let none = await expectRPCError { _ = try await harness.createWebhook(url, events: []) }
        #expect(none?.message.contains("events") == true)
        let unknown = await expectRPCError {
            _ = try await harness.createWebhook(url, events: [.deliverySent, .init(rawValue: "delivery.exploded")])
        }
        #expect(unknown?.message.contains("events[1]") == true)
        let test = await expectRPCError { _ = try await harness.createWebhook(url, events: [.webhookTest]) }
        #expect(test?.message.contains("events[0]") == true)
        let long = await expectRPCError {
            _ = try await harness.webhooks(
                Webhooks.Create.self,
                .init(url: url, events: [.deliverySent], description: String(repeating: "x", count: 201)))
        }
        #expect(long?.message.contains("description") == true)
        #expect(try await harness.count("webhook_endpoint") == 0)
    }

    @Test(
        "production: without SECUREPUSH_WEBHOOK_ALLOWED_HOSTS nothing is accepted; with it only listed hosts, https only"
    )
    func production() async throws {
        let unlisted = try await DispatchHarness.withWebhooks {
            $0.allowedHosts = []
            $0.isProduction = true
        }
        let refused = await expectRPCError { _ = try await unlisted.createWebhook("https://hooks.bank.example/x") }
        #expect(refused?.message.contains("SECUREPUSH_WEBHOOK_ALLOWED_HOSTS must be set in production") == true)
        let listed = try await DispatchHarness.withWebhooks {
            $0.allowedHosts = ["bank.example", "127.0.0.1"]
            $0.isProduction = true
        }
        _ = try await listed.createWebhook("https://hooks.bank.example/x")
        let other = await expectRPCError { _ = try await listed.createWebhook("https://evil.example/x") }
        #expect(other?.message.contains("not in SECUREPUSH_WEBHOOK_ALLOWED_HOSTS") == true)
        let http = await expectRPCError { _ = try await listed.createWebhook("http://127.0.0.1:9/hook") }
        #expect(http?.message.contains("must be https:// in production") == true)
    }

    @Test("a client has at most 20 endpoints")
    func perClientLimit() async throws {
        let harness = try await DispatchHarness.withWebhooks { $0.allowedHosts = nil }
        for index in 0..<WebhookEndpoints.maxPerClient {
            _ = try await harness.createWebhook("https://hooks.bank.example/\(index)")
        }
        let error = await expectRPCError { _ = try await harness.createWebhook("https://hooks.bank.example/x") }
        #expect(error?.code == RPCErrorCode.conflict)
        _ = try await harness.createWebhook("https://hooks.bank.example/x", as: "shop")
    }
}
