import Foundation
import SharedModels
import Testing

@Suite("webhooks.* wire contract and the event bodies")
struct WebhooksContractTests {
    /// One body per event type a receiver parses (docs/webhooks.md shows the same).
    static let eventFixtures = [
        "webhooks.event.delivery.sent", "webhooks.event.delivery.failed", "webhooks.event.device.deactivated",
        "webhooks.event.notification.expired", "webhooks.event.schedule.sent", "webhooks.event.webhook.test",
    ]

    @Test("webhooks.create {url, events, description?} → {webhookId, secret}")
    func create() throws {
        let params = try Fixture.params(Webhooks.Create.self, "webhooks.create")
        #expect(params.events == [.deliveryFailed, .deviceDeactivated])
        #expect(params.description == "operations alerts")
        #expect(
            try Fixture.params(Webhooks.Create.self, "webhooks.create", minimal: true)
                == .init(url: "https://hooks.bank.example/securepush", events: [.deliverySent]))
        let result = try Fixture.result(Webhooks.Create.self, "webhooks.create")
        #expect(result.secret.hasPrefix("whsec_"))
    }

    @Test("webhooks.list {} → {webhooks}: enabled and disabled endpoints, never a secret")
    func list() throws {
        #expect(try Fixture.params(Webhooks.List.self, "webhooks.list") == Empty())
        let webhooks = try Fixture.result(Webhooks.List.self, "webhooks.list").webhooks
        #expect(webhooks.map(\.state) == ["enabled", "disabled"])
        #expect(webhooks.first?.previousSecretExpiresAt == Fixture.utc(2026, 11, 28, 9, 30, 0))
        #expect(webhooks.last?.disabledAt == Fixture.utc(2026, 11, 26, 10, 0, 0))
        #expect(!(try String(decoding: Fixture.data("webhooks.list.result"), as: UTF8.self)).contains("whsec_"))
    }

    @Test("webhooks.delete, .test, .rotateSecret and .replay take {webhookId} (replay also since)")
    func perEndpoint() throws {
        let id = "wh_6Qk1vJb0d9Wq2m5cZp8xTw"
        #expect(try Fixture.params(Webhooks.Delete.self, "webhooks.delete") == .init(webhookId: id))
        #expect(try Fixture.result(Webhooks.Delete.self, "webhooks.delete") == Empty())
        #expect(try Fixture.params(Webhooks.Test.self, "webhooks.test") == .init(webhookId: id))
        #expect(try Fixture.result(Webhooks.Test.self, "webhooks.test").eventId.hasPrefix("msg_"))
        #expect(try Fixture.params(Webhooks.RotateSecret.self, "webhooks.rotateSecret") == .init(webhookId: id))
        #expect(
            try Fixture.result(Webhooks.RotateSecret.self, "webhooks.rotateSecret").previousSecretExpiresAt
                == Fixture.utc(2026, 11, 28, 9, 30, 0))
        #expect(
            try Fixture.params(Webhooks.Replay.self, "webhooks.replay")
                == .init(webhookId: id, since: Fixture.utc(2026, 11, 27, 8, 0, 0)))
        #expect(try Fixture.result(Webhooks.Replay.self, "webhooks.replay") == .init(events: 42))
    }

    @Test("each event body is {type, timestamp, data} and round-trips through Webhooks.Event", arguments: eventFixtures)
    func eventBody(fixture: String) throws {
        let event = try Fixture.roundTrip(Webhooks.Event.self, fixture)
        #expect("webhooks.event." + event.type.rawValue == fixture)
        #expect(
            Webhooks.EventType.subscribable.contains(event.type) || event.type == .webhookTest,
            "\(event.type) is not a documented type")
    }
}
