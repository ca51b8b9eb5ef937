import Foundation
import SharedModels
import Testing

@Suite("push.* wire contract")
struct PushContractTests {
    static let payload = "Your order #81723 has shipped and arrives Tuesday."
    /// `push.send` to many recipients: the same method as ``Push/Send``, so its fixtures carry a `.many` suffix.
    static let sendToManyFixtures = ["push.send.many.params", "push.send.many.result"]

    @Test(
        "push.send {recipientId, payload, ttlSeconds?, idempotencyKey?, sealedOnly?, readOnce?, appId?, priority?, collapseId?} → {notificationId, deliveries}"
    )
    func send() throws {
        let full = try Fixture.params(Push.Send.self, "push.send")
        #expect(
            full
                == Push.Send.Params(
                    recipientId: AuthContractTests.userId, payload: Self.payload, ttlSeconds: 86_400,
                    idempotencyKey: "order-81723-shipped", sealedOnly: true, readOnce: true, appId: "retail-ios",
                    priority: .high, collapseId: "order-81723"))
        let minimal = try Fixture.params(Push.Send.self, "push.send", minimal: true)
        #expect(minimal.sealedOnly == nil && minimal.readOnce == nil && minimal.appId == nil)
        #expect(minimal.priority == nil && minimal.collapseId == nil)
        #expect(minimal == Push.Send.Params(recipientId: AuthContractTests.userId, payload: Self.payload))

        let result = try Fixture.result(Push.Send.self, "push.send")
        #expect(result.notificationId == StoreContractTests.notificationId)
        #expect(
            result.deliveries == [
                Push.Send.Delivery(deviceId: DevicesContractTests.phone, platform: .apns, status: .queued),
                Push.Send.Delivery(deviceId: DevicesContractTests.tablet, platform: .direct, status: .sent),
            ])
    }

    @Test("push.send {recipientIds, …} → {notifications: [{recipientId, notificationId}], unknownRecipientIds}")
    func sendToMany() throws {
        #expect(Push.SendToMany.name == "push.send")
        let second = "7d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6"
        let unknown = "00000000-0000-4000-8000-000000000000"
        #expect(
            try Fixture.roundTrip(Push.SendToMany.Params.self, "push.send.many.params")
                == Push.SendToMany.Params(
                    recipientIds: [AuthContractTests.userId, second, unknown],
                    payload: "Your November statement is ready.", ttlSeconds: 86_400,
                    idempotencyKey: "statement-2026-11", sealedOnly: true, readOnce: true, appId: "retail-ios",
                    priority: .normal, collapseId: "statement-2026-11", sendAt: Fixture.utc(2026, 11, 30, 8, 0, 0)))
        #expect(
            try Fixture.roundTrip(Push.SendToMany.Result.self, "push.send.many.result")
                == Push.SendToMany.Result(
                    notifications: [
                        Push.RecipientNotification(
                            recipientId: AuthContractTests.userId, notificationId: StoreContractTests.notificationId),
                        Push.RecipientNotification(
                            recipientId: second, notificationId: "0ddba115-5678-4cde-9f01-23456789abcd"),
                    ], unknownRecipientIds: [unknown]))
        #expect(Push.Priority.accepted.map(\.rawValue) == ["high", "normal"])
    }

    @Test("push.status {notificationId} → per-device delivery state, with each device's first fetch")
    func status() throws {
        #expect(try Fixture.params(Push.Status.self, "push.status").notificationId == StoreContractTests.notificationId)
        let full = try Fixture.result(Push.Status.self, "push.status")
        #expect(full.notificationId == StoreContractTests.notificationId)
        #expect(full.traceId == "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(full.state == .sent)
        #expect(full.sendAt == Fixture.utc(2026, 11, 22, 10, 0, 0))
        #expect(
            full.deliveries == [
                Push.Status.DeliveryState(
                    deviceId: DevicesContractTests.phone, platform: .apns, status: .retrying, attempts: 3,
                    lastError: "apns: 503 ServiceUnavailable", updatedAt: Fixture.utc(2026, 11, 22, 10, 2, 0),
                    fetchedAt: Fixture.utc(2026, 11, 22, 10, 2, 5)),
                Push.Status.DeliveryState(
                    deviceId: DevicesContractTests.tablet, platform: .fcm, status: .deactivated, attempts: 1,
                    lastError: "fcm: 404 UNREGISTERED", updatedAt: Fixture.utc(2026, 11, 22, 10, 0, 1)),
            ])
        let minimal = try Fixture.result(Push.Status.self, "push.status", minimal: true)
        #expect(minimal.traceId == nil, "an untraced send has no traceId")
        #expect(minimal.state == nil && minimal.sendAt == nil, "older servers answer neither")
        #expect(
            minimal.deliveries == [
                Push.Status.DeliveryState(
                    deviceId: DevicesContractTests.tablet, platform: .direct, status: .acknowledged, attempts: 1,
                    updatedAt: Fixture.utc(2026, 11, 22, 10, 0, 1))
            ])
    }

    @Test("push.cancel {notificationId} → {}; send states keep their wire names")
    func cancel() throws {
        #expect(
            try Fixture.params(Push.Cancel.self, "push.cancel")
                == Push.Cancel.Params(notificationId: StoreContractTests.notificationId))
        #expect(try Fixture.result(Push.Cancel.self, "push.cancel") == Empty())
        #expect(
            [Push.SendState.scheduled, .cancelled, .sent].map(\.rawValue) == ["scheduled", "cancelled", "sent"])
    }

    @Test("push.notify {notificationId}: the notification a device receives")
    func notify() throws {
        let params = try Fixture.params(Push.Notify.self, "push.notify")
        #expect(params == Push.Notify.Params(notificationId: StoreContractTests.notificationId))
        #expect(try Fixture.result(Push.Notify.self, "push.notify") == Empty())
    }

    @Test("delivery states keep their wire names")
    func deliveryStatusNames() {
        let all: [DeliveryStatus] = [
            .queued, .sent, .acknowledged, .retrying, .failed, .expired, .deactivated, .collapsed,
        ]
        #expect(
            all.map(\.rawValue) == [
                "queued", "sent", "acknowledged", "retrying", "failed", "expired", "deactivated", "collapsed",
            ])
        let platforms: [Platform] = [.direct, .apns, .fcm, .wns, .webpush]
        #expect(platforms.map(\.rawValue) == ["direct", "apns", "fcm", "wns", "webpush"])
    }
}
