import Foundation
import GRDB
import Metrics
import SharedModels
import TestSupport
import Testing

@testable import DispatchService

/// Webhook events end to end inside push-dispatch: recorded after each action, POSTed to a local receiver that checks
/// the signatures itself, retried with one `webhook-id`, rotated, disabled, replayed.
@Suite("Webhook delivery")
struct WebhookDeliveryTests {
    static let payload = "the secret text 4711"
    static let apnsToken = String(repeating: "a1", count: 32)

    /// Waits until the receiver holds a delivery of `type` (and `where` holds for it); returns it.
    static func awaitDelivery(
        _ receiver: WebhookReceiver, _ type: Webhooks.EventType, timeout: Duration = .seconds(10),
        where predicate: @Sendable (WebhookReceiver.Delivery) -> Bool = { _ in true },
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> WebhookReceiver.Delivery {
        var found: WebhookReceiver.Delivery?
        _ = await eventually(timeout: timeout) {
            found = await receiver.deliveries(ofType: type.rawValue).first(where: predicate)
            return found != nil
        }
        return try #require(found, "no \(type) event arrived", sourceLocation: sourceLocation)
    }

    /// The stored events of `endpoint`: (event id, status, attempts), oldest first.
    static func messages(_ harness: DispatchHarness) async throws -> [(id: String, status: String, attempts: Int)] {
        try await harness.components.sqlite!.read { db in
            try Row.fetchAll(db, sql: "SELECT event_id, status, attempts FROM webhook_message ORDER BY sequence").map {
                ($0[0], $0[1], $0[2])
            }
        }
    }

    @Test(
        "every event type after its action: signed with the endpoint's secret, with ids and statuses, never the payload or a token"
    )
    func everyEventType() async throws {
        let provider = ScriptedProvider(script: [.sent, .failed(reason: "BadDeviceToken for \(Self.apnsToken)")])
        // Timeouts are another test's: here an attempt has time to arrive on a loaded machine.
        let harness = try await DispatchHarness.withWebhooks([provider]) { $0.attemptTimeout = .seconds(5) }
        let receiver = WebhookReceiver()
        try await receiver.serve { url in
            let webhook = try await harness.createWebhook(url)
            let phone = try await harness.registerDevice(user: "alice", platform: .apns, token: Self.apnsToken)
            let tablet = try await harness.registerDevice(user: "carol")  // direct, never connected: stays queued
            try await harness.runningWebhooks {
                let sent = try await harness.send(to: "alice", payload: Self.payload).notificationId
                let delivered = try await Self.awaitDelivery(receiver, .deliverySent)
                #expect(delivered.data["notificationId"] as? String == sent)
                #expect(delivered.data["deviceId"] as? String == phone)
                #expect(delivered.data["recipientId"] as? String == "alice")
                #expect(delivered.data["platform"] as? String == "apns")
                #expect(delivered.data["status"] as? String == "sent")
                #expect(delivered.data["appId"] as? String == "default")

                let fetchedAt = Date(millisecondsSince1970: Date().millisecondsSince1970)
                harness.store.setReceipts([Store.Receipt(deviceId: phone, fetchedAt: fetchedAt)], for: sent)
                let fetched = try await Self.awaitDelivery(receiver, .notificationFetched)
                #expect(fetched.data["notificationId"] as? String == sent)
                #expect(fetched.data["deviceId"] as? String == phone)
                #expect(fetched.data["recipientId"] as? String == "alice")

                let failed = try await harness.send(to: "alice", payload: Self.payload).notificationId
                let failure = try await Self.awaitDelivery(receiver, .deliveryFailed)
                #expect(failure.data["notificationId"] as? String == failed)
                #expect((failure.data["error"] as? String)?.hasPrefix("BadDeviceToken for [redacted]") == true)

                let older = try await harness.client.call(
                    Push.Send.self, .init(recipientId: "carol", payload: Self.payload, collapseId: "balance"),
                    token: try await harness.signer.senderToken()
                ).notificationId
                _ = try await harness.client.call(
                    Push.Send.self, .init(recipientId: "carol", payload: Self.payload, collapseId: "balance"),
                    token: try await harness.signer.senderToken())
                let collapsed = try await Self.awaitDelivery(receiver, .deliveryCollapsed)
                #expect(collapsed.data["notificationId"] as? String == older)
                #expect(collapsed.data["deviceId"] as? String == tablet)

                provider.script(.deactivate(reason: "Unregistered"))
                _ = try await harness.send(to: "alice", payload: Self.payload)
                let deactivated = try await Self.awaitDelivery(receiver, .deviceDeactivated)
                #expect(deactivated.data["deviceId"] as? String == phone)
                #expect(deactivated.data["platform"] as? String == "apns")

                let brief = try await harness.send(to: "carol", payload: Self.payload, ttlSeconds: 1).notificationId
                let expired = try await Self.awaitDelivery(receiver, .notificationExpired)
                #expect(expired.data["notificationId"] as? String == brief)

                let scheduled = try await harness.client.call(
                    Push.Send.self,
                    .init(recipientId: "carol", payload: Self.payload, sendAt: Date().addingTimeInterval(2.5)),
                    token: try await harness.signer.senderToken()
                ).notificationId
                // The schedule's periodic service is not run here: it is looked at as it would be.
                let published = try await eventually {
                    try await harness.components.pushes.sendDueSchedules() > 0
                }
                #expect(published)
                let due = try await Self.awaitDelivery(receiver, .scheduleSent)
                #expect(due.data["notificationId"] as? String == scheduled)
                #expect(due.data["sendAt"] != nil)

                let test = try await harness.webhooks(Webhooks.Test.self, .init(webhookId: webhook.webhookId))
                let testEvent = try await Self.awaitDelivery(receiver, .webhookTest)
                #expect(testEvent.id == test.eventId)
                #expect(testEvent.data["webhookId"] as? String == webhook.webhookId)
            }
            for delivery in await receiver.deliveries {
                #expect(delivery.isSigned(with: webhook.secret), "\(delivery.type) is not signed with the secret")
                #expect(delivery.id.hasPrefix("msg_"))
                #expect(delivery.request.headers["content-type"] == "application/json")
                let body = String(decoding: delivery.request.body, as: UTF8.self)
                #expect(!body.contains(Self.payload))
                #expect(!body.contains(Self.apnsToken))
                #expect(Set(delivery.json.keys) == ["type", "timestamp", "data"])
            }
            // Each event recorded once, however often the feed looked at it; a POST that arrived more than once was
            // an attempt retried (one slower than the attempt timeout on a loaded machine), never a second event.
            let stored = try await Self.messages(harness)
            #expect(Set(stored.map(\.id)).count == stored.count, "\(stored)")
            let attempts = Dictionary(stored.map { ($0.id, $0.attempts) }, uniquingKeysWith: max)
            let arrivals = Dictionary(grouping: await receiver.deliveries.map(\.id), by: { $0 }).mapValues(\.count)
            #expect(Set(arrivals.keys).isSubset(of: Set(attempts.keys)))
            for (id, count) in arrivals where count > 1 {
                // The last attempt may not be recorded yet: the ones before it, which failed, are.
                let recorded = attempts[id] ?? 0
                #expect(count <= recorded + 1, "\(id) arrived \(count) times after \(recorded) recorded attempts")
            }
        }
    }

    @Test("a 500 and a timeout are retried with the same webhook-id until a 2xx")
    func retries() async throws {
        let harness = try await DispatchHarness.withWebhooks()
        let receiver = WebhookReceiver()
        await receiver.answer(.internalServerError, times: 1)
        await receiver.answer(.noContent, times: 1, after: .seconds(2))
        try await receiver.serve { url in
            let webhook = try await harness.createWebhook(url)
            try await harness.runningWebhooks {
                let test = try await harness.webhooks(Webhooks.Test.self, .init(webhookId: webhook.webhookId))
                #expect(await eventually { await receiver.deliveries.count >= 3 })
                #expect(
                    await eventually {
                        (try? await Self.messages(harness).first?.status) == "delivered"
                    })
                let ids = await receiver.deliveries.map(\.id)
                #expect(ids.count == 3)
                #expect(Set(ids) == [test.eventId])
                #expect(try await Self.messages(harness).first?.attempts == 3)
            }
        }
    }

    @Test(
        "an endpoint failing for longer than SECUREPUSH_WEBHOOK_DISABLE_AFTER is disabled; its events wait; a test that arrives enables it and they follow"
    )
    func disabledAfterSustainedFailure() async throws {
        let provider = ScriptedProvider(script: [.sent])
        let harness = try await DispatchHarness.withWebhooks([provider]) { $0.disableAfter = .milliseconds(300) }
        let receiver = WebhookReceiver()
        await receiver.answer(.serviceUnavailable, times: 1_000)
        try await receiver.serve { url in
            let webhook = try await harness.createWebhook(url)
            _ = try await harness.registerDevice(user: "alice", platform: .apns, token: Self.apnsToken)
            try await harness.runningWebhooks {
                _ = try await harness.webhooks(Webhooks.Test.self, .init(webhookId: webhook.webhookId))
                #expect(
                    await eventually {
                        (try? await harness.webhooks(Webhooks.List.self, Empty()).webhooks.first?.state) == "disabled"
                    })
                let listed = try await harness.webhooks(Webhooks.List.self, Empty()).webhooks.first
                #expect(listed?.failingSince != nil)
                #expect(listed?.disabledAt != nil)
                // While disabled, events are recorded and wait.
                let sent = try await harness.send(to: "alice").notificationId
                #expect(
                    await eventually {
                        (try? await Self.messages(harness).contains { $0.status == "pending" && $0.attempts == 0 })
                            == true
                    })
                try await Task.sleep(for: .milliseconds(300))
                #expect(await receiver.deliveries(ofType: "delivery.sent").isEmpty)

                await receiver.answerNormally()
                _ = try await harness.webhooks(Webhooks.Test.self, .init(webhookId: webhook.webhookId))
                #expect(
                    await eventually {
                        (try? await harness.webhooks(Webhooks.List.self, Empty()).webhooks.first?.state) == "enabled"
                    })
                let followed = try await Self.awaitDelivery(receiver, .deliverySent)
                #expect(followed.data["notificationId"] as? String == sent)
            }
        }
    }

    @Test("after rotateSecret both secrets sign until the overlap ends, then only the new one")
    func rotation() async throws {
        let harness = try await DispatchHarness.withWebhooks { $0.secretOverlap = .seconds(1) }
        let receiver = WebhookReceiver()
        try await receiver.serve { url in
            let webhook = try await harness.createWebhook(url)
            try await harness.runningWebhooks {
                let rotated = try await harness.webhooks(
                    Webhooks.RotateSecret.self, .init(webhookId: webhook.webhookId))
                #expect(rotated.secret != webhook.secret)
                let first = try await harness.webhooks(Webhooks.Test.self, .init(webhookId: webhook.webhookId))
                let during = try await Self.awaitDelivery(receiver, .webhookTest) { $0.id == first.eventId }
                #expect(during.signatures.count == 2)
                #expect(during.isSigned(with: webhook.secret))
                #expect(during.isSigned(with: rotated.secret))
                try await Task.sleep(for: .milliseconds(1_200))
                let second = try await harness.webhooks(Webhooks.Test.self, .init(webhookId: webhook.webhookId))
                let after = try await Self.awaitDelivery(receiver, .webhookTest) { $0.id == second.eventId }
                #expect(after.signatures.count == 1)
                #expect(after.isSigned(with: rotated.secret))
                #expect(!after.isSigned(with: webhook.secret))
            }
        }
    }

    @Test("replay sends the kept events since a time again with their ids; since beyond the retention is -32602")
    func replay() async throws {
        let harness = try await DispatchHarness.withWebhooks()
        let receiver = WebhookReceiver()
        try await receiver.serve { url in
            let webhook = try await harness.createWebhook(url)
            try await harness.runningWebhooks {
                let start = Date()
                let first = try await harness.webhooks(Webhooks.Test.self, .init(webhookId: webhook.webhookId))
                let second = try await harness.webhooks(Webhooks.Test.self, .init(webhookId: webhook.webhookId))
                #expect(await eventually { await receiver.deliveries.count == 2 })
                let replayed = try await harness.webhooks(
                    Webhooks.Replay.self, .init(webhookId: webhook.webhookId, since: start.addingTimeInterval(-1)))
                #expect(replayed.events == 2)
                #expect(await eventually { await receiver.deliveries.count == 4 })
                #expect(
                    await receiver.deliveries.map(\.id).suffix(2).sorted() == [first.eventId, second.eventId].sorted())
                let old = await expectRPCError {
                    _ = try await harness.webhooks(
                        Webhooks.Replay.self,
                        .init(webhookId: webhook.webhookId, since: Date().addingTimeInterval(-4 * 86_400)))
                }
                #expect(old?.code == RPCErrorCode.invalidParams)
                #expect(old?.message.contains("since") == true)
            }
        }
    }

    @Test("a client's events reach only its endpoints; device.deactivated reaches every subscribed endpoint of the app")
    func isolation() async throws {
        let provider = ScriptedProvider(script: [.sent, .deactivate(reason: "Unregistered")])
        let harness = try await DispatchHarness.withWebhooks([provider])
        let receiver = WebhookReceiver()
        try await receiver.serve { url in
            let bank = try await harness.createWebhook(url + "?client=bank")
            let shop = try await harness.createWebhook(url + "?client=shop", as: "shop")
            let phone = try await harness.registerDevice(user: "alice", platform: .apns, token: Self.apnsToken)
            try await harness.runningWebhooks {
                _ = try await harness.send(to: "alice")
                _ = try await Self.awaitDelivery(receiver, .deliverySent)
                _ = try await harness.send(to: "alice")
                _ = try await Self.awaitDelivery(receiver, .deviceDeactivated)
                #expect(await eventually { await receiver.deliveries(ofType: "device.deactivated").count == 2 })
                try await Task.sleep(for: .milliseconds(300))
            }
            let deliveries = await receiver.deliveries
            let toShop = deliveries.filter { $0.request.uri.hasSuffix("client=shop") }
            #expect(toShop.map(\.type) == ["device.deactivated"])
            #expect(toShop.allSatisfy { $0.isSigned(with: shop.secret) && !$0.isSigned(with: bank.secret) })
            #expect(toShop.first?.data["deviceId"] as? String == phone)
            let toBank = deliveries.filter { $0.request.uri.hasSuffix("client=bank") }
            #expect(Set(toBank.map(\.type)) == ["delivery.sent", "device.deactivated"])
        }
    }

    @Test("an endpoint the address rules no longer allow is never contacted: its events fail at once")
    func refusedAtSendTime() async throws {
        let harness = try await DispatchHarness.withWebhooks()
        let receiver = WebhookReceiver()
        try await receiver.serve { url in
            // Created while 127.0.0.1 was listed; the operator has since removed it.
            let webhook = try await harness.createWebhook(url)
            var stricter = harness.configuration.webhooks
            stricter.allowedHosts = nil
            let sender = WebhookSender(
                repository: harness.components.webhookSender.repository, feed: harness.components.webhookSender.feed,
                secretSealer: harness.components.webhookSender.secretSealer, configuration: stricter, owner: "strict",
                now: { Date() }, logger: .quiet, metrics: WebhookMetrics(factory: NOOPMetricsHandler.instance),
                audit: harness.components.audit)
            _ = try await harness.webhooks(Webhooks.Test.self, .init(webhookId: webhook.webhookId))
            let clients = try WebhookHTTPClients(configuration: stricter, logger: .quiet)
            let claimed = try await sender.sendDue(clients: clients)
            await clients.shutdown()
            #expect(claimed == 1)
            #expect(await receiver.deliveries.isEmpty)
            #expect(try await Self.messages(harness).first?.status == "failed")
            // The refusal is in the audit trail too.
            try await harness.components.audit.flush()
            let refusals = try await harness.components.database.sql.read(
                "SELECT body FROM dispatch_audit_entry WHERE type = 'config.refused'", [])
            #expect(refusals.count == 1)
            #expect(try refusals.first?.decode(0, as: String.self).contains(webhook.webhookId) == true)
        }
    }

    /// The endpoint's row: (failing since, disabled at) as stored.
    static func endpointRow(_ harness: DispatchHarness) throws -> (Int64?, Int64?) {
        let row = try harness.components.sqlite!.read { db in
            try Row.fetchOne(db, sql: "SELECT failing_since, disabled_at FROM webhook_endpoint")
        }
        let stored = try #require(row)
        return (stored[0], stored[1])
    }

    @Test("an attempt cut short by shutdown counts nothing: the event waits, unleased, and the endpoint is not failing")
    func shutdownCountsNothing() async throws {
        let harness = try await DispatchHarness.withWebhooks { $0.attemptTimeout = .seconds(10) }
        let receiver = WebhookReceiver()
        await receiver.answer(.noContent, times: 1, after: .seconds(5))
        try await receiver.serve { url in
            let webhook = try await harness.createWebhook(url)
            try await harness.runningWebhooks {
                _ = try await harness.webhooks(Webhooks.Test.self, .init(webhookId: webhook.webhookId))
                #expect(await eventually { await receiver.deliveries.count == 1 })
            }
            let row = try harness.components.sqlite!.read { db in
                try Row.fetchOne(db, sql: "SELECT status, attempts, lease_owner FROM webhook_message")
            }
            let stored = try #require(row)
            #expect(stored[0] as String == "pending")
            #expect(stored[1] as Int == 0)
            #expect((stored[2] as String?) == nil)
            #expect(try Self.endpointRow(harness).0 == nil)
        }
    }

    @Test("a secret this replica cannot open (another apps key) counts no attempt and marks the endpoint nothing")
    func unusableSecretIsNotTheReceiversFault() async throws {
        let harness = try await DispatchHarness.withWebhooks()
        let receiver = WebhookReceiver()
        try await receiver.serve { url in
            let webhook = try await harness.createWebhook(url)
            let current = harness.components.webhookSender
            let wrongKey = WebhookSender(
                repository: current.repository, feed: current.feed,
                secretSealer: WebhookSecretSealer(keys: .keys(.generate()), now: { Date() }),
                configuration: current.configuration, owner: "wrong-key", now: { Date() }, logger: .quiet,
                metrics: WebhookMetrics(factory: NOOPMetricsHandler.instance))
            _ = try await harness.webhooks(Webhooks.Test.self, .init(webhookId: webhook.webhookId))
            let clients = try WebhookHTTPClients(configuration: current.configuration, logger: .quiet)
            #expect(try await wrongKey.sendDue(clients: clients) == 1)
            await clients.shutdown()
            #expect(await receiver.deliveries.isEmpty)
            let stored = try await Self.messages(harness)
            #expect(stored.map(\.status) == ["pending"])
            #expect(stored.map(\.attempts) == [0])
            #expect(try Self.endpointRow(harness).0 == nil)
        }
    }

    @Test("a receiver that hangs holds at most 8 attempts; another endpoint's events keep flowing")
    func slowReceiverHoldsOnlyItsOwn() async throws {
        let harness = try await DispatchHarness.withWebhooks { $0.attemptTimeout = .seconds(5) }
        let slow = WebhookReceiver()
        let fast = WebhookReceiver()
        await slow.answer(.noContent, times: 50, after: .seconds(2))
        try await slow.serve { slowURL in
            try await fast.serve { fastURL in
                let stuck = try await harness.createWebhook(slowURL)
                let healthy = try await harness.createWebhook(fastURL, as: "shop")
                try await harness.runningWebhooks {
                    for _ in 0..<20 {
                        _ = try await harness.webhooks(Webhooks.Test.self, .init(webhookId: stuck.webhookId))
                    }
                    for _ in 0..<3 {
                        _ = try await harness.webhooks(
                            Webhooks.Test.self, .init(webhookId: healthy.webhookId), as: "shop")
                    }
                    #expect(await eventually(timeout: .seconds(1.5)) { await fast.deliveries.count == 3 })
                    // Within the first hang only 8 of the 20 reached the slow receiver.
                    #expect(await slow.deliveries.count == WebhookConfiguration().perEndpoint)
                }
            }
        }
    }

    @Test("the feed writes what it saw once: a second look over the same window records nothing")
    func feedRemembersWhatItRecorded() async throws {
        let provider = ScriptedProvider(script: [.sent, .sent])
        let harness = try await DispatchHarness.withWebhooks([provider])
        _ = try await harness.createWebhook("http://127.0.0.1:9/hook")
        _ = try await harness.registerDevice(user: "alice", platform: .apns, token: Self.apnsToken)
        try await RunningWorkers.with(harness.components.workers) {
            let first = try await harness.send(to: "alice").notificationId
            let second = try await harness.send(to: "alice").notificationId
            #expect(try await harness.waitForStatus(first, .sent))
            #expect(try await harness.waitForStatus(second, .sent))
        }
        let feed = harness.components.webhookSender.feed
        #expect(try await feed.run() == 2)
        #expect(feed.recent.count == 2)
        #expect(try await feed.run() == 0)
        #expect(try await harness.count("webhook_message") == 2)
    }
}
