import Foundation
import SharedModels
import Testing

@Suite("store.* wire contract")
struct StoreContractTests {
    static let notificationId = "c0ffee00-1234-4abc-8def-0123456789ab"
    static let payload = "Your verification code is 482913. It expires in 10 minutes."
    static let createdAt = Fixture.utc(2026, 11, 22, 10, 0, 0)
    static let expiresAt = Fixture.utc(2026, 11, 29, 10, 0, 0)
    static let readAt = Fixture.utc(2026, 11, 22, 10, 5, 30)

    @Test(
        "store.put {recipientId, payload, ttlSeconds?, recipientKeys?, sealedOnly?, readOnce?} → {notificationId, expiresAt}"
    )
    func put() throws {
        let full = try Fixture.params(Store.Put.self, "store.put")
        #expect(
            full
                == Store.Put.Params(
                    recipientId: AuthContractTests.userId, payload: Self.payload, ttlSeconds: 604_800,
                    recipientKeys: [
                        Store.RecipientKey(
                            deviceId: DevicesContractTests.phone, publicKey: DevicesContractTests.publicKey)
                    ], sealedOnly: true, readOnce: true))
        let minimal = try Fixture.params(Store.Put.self, "store.put", minimal: true)
        #expect(minimal == Store.Put.Params(recipientId: AuthContractTests.userId, payload: Self.payload))
        #expect(minimal.ttlSeconds == nil && minimal.recipientKeys == nil && minimal.readOnce == nil)
        let result = try Fixture.result(Store.Put.self, "store.put")
        #expect(result == Store.Put.Result(notificationId: Self.notificationId, expiresAt: Self.expiresAt))
    }

    @Test("store.putMany {items: [store.put params + idempotencyKey?]} → {results: [{notificationId, expiresAt}]}")
    func putMany() throws {
        let params = try Fixture.params(Store.PutMany.self, "store.putMany")
        #expect(
            params.items == [
                Store.Put.Params(
                    recipientId: AuthContractTests.userId, payload: Self.payload, ttlSeconds: 604_800,
                    recipientKeys: [
                        Store.RecipientKey(
                            deviceId: DevicesContractTests.phone, publicKey: DevicesContractTests.publicKey)
                    ], sealedOnly: true, readOnce: true,
                    idempotencyKey: "k3TqfBfvYk0n8Yx6rU9wq1hXx0l1bq9m0S8c3Zc5s2A"),
                Store.Put.Params(
                    recipientId: "7d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6", payload: Self.payload,
                    sendAt: Fixture.utc(2026, 11, 30, 8, 0, 0)),
            ])
        #expect(
            try Fixture.result(Store.PutMany.self, "store.putMany").results == [
                Store.Put.Result(notificationId: Self.notificationId, expiresAt: Self.expiresAt),
                Store.Put.Result(notificationId: "0ddba115-5678-4cde-9f01-23456789abcd", expiresAt: Self.expiresAt),
            ])
    }

    @Test(
        "store.publish {items: [{notificationId, recipientKeys?, sealedOnly?}]} → {published, missingNotificationIds}")
    func publish() throws {
        let second = "0ddba115-5678-4cde-9f01-23456789abcd"
        #expect(
            try Fixture.params(Store.Publish.self, "store.publish").items == [
                Store.Publish.Item(
                    notificationId: Self.notificationId,
                    recipientKeys: [
                        Store.RecipientKey(
                            deviceId: DevicesContractTests.phone, publicKey: DevicesContractTests.publicKey)
                    ], sealedOnly: true),
                Store.Publish.Item(notificationId: second),
            ])
        #expect(
            try Fixture.result(Store.Publish.self, "store.publish")
                == Store.Publish.Result(published: 1, missingNotificationIds: [second]))
    }

    @Test("store.discard {notificationIds} → {discarded}")
    func discard() throws {
        #expect(
            try Fixture.params(Store.Discard.self, "store.discard")
                == Store.Discard.Params(notificationIds: [Self.notificationId]))
        #expect(try Fixture.result(Store.Discard.self, "store.discard") == Store.Discard.Result(discarded: 1))
    }

    @Test("store.get {notificationId, deviceId?} → the notification with its payload, or the device's sealed copy")
    func get() throws {
        #expect(
            try Fixture.params(Store.Get.self, "store.get")
                == Store.Get.Params(notificationId: Self.notificationId, deviceId: DevicesContractTests.phone))
        let sealed = try Fixture.result(Store.Get.self, "store.get")
        #expect(
            sealed
                == Store.StoredNotification(
                    notificationId: Self.notificationId,
                    sealed: Store.SealedCopy(
                        deviceId: DevicesContractTests.phone,
                        enc: "BKknGcYZXVCFEE9Gmou"
                            + "YFNWDj_crYFAeLERm5eZ7MlrJhTbXthoa9LeOW3-VHAkAvoY8QDzmXJv8uTgmVyItGMQ",
                        ciphertext: "WtWQu4uqV3-GGds1o2MRImqJbnNCptg22Le80vILbH-QdqwjLjqyUj85UTQ0"),
                    createdAt: Self.createdAt, expiresAt: Self.expiresAt, readAt: Self.readAt))
        #expect(sealed.payload == nil)
        let plain = try Fixture.result(Store.Get.self, "store.get", minimal: true)
        #expect(plain.readAt == nil && plain.sealed == nil)
        #expect(plain.payload == Self.payload)
    }

    @Test("store.receipts {notificationId} → each device's first fetch")
    func receipts() throws {
        #expect(try Fixture.params(Store.Receipts.self, "store.receipts").notificationId == Self.notificationId)
        #expect(
            try Fixture.result(Store.Receipts.self, "store.receipts").receipts == [
                Store.Receipt(deviceId: DevicesContractTests.phone, fetchedAt: Fixture.utc(2026, 11, 22, 10, 0, 4)),
                Store.Receipt(deviceId: DevicesContractTests.tablet, fetchedAt: Fixture.utc(2026, 11, 22, 10, 3, 10)),
            ])
    }

    @Test("store.receiptsSince {after, limit?} → {receipts: [{notificationId, deviceId, fetchedAt}], next}")
    func receiptsSince() throws {
        #expect(
            try Fixture.params(Store.ReceiptsSince.self, "store.receiptsSince")
                == Store.ReceiptsSince.Params(after: 1_795_860_000_000, limit: 500))
        #expect(
            try Fixture.params(Store.ReceiptsSince.self, "store.receiptsSince", minimal: true)
                == Store.ReceiptsSince.Params(after: 0))
        let result = try Fixture.result(Store.ReceiptsSince.self, "store.receiptsSince")
        #expect(result.receipts.map(\.deviceId) == [DevicesContractTests.phone, DevicesContractTests.tablet])
        #expect(result.receipts.allSatisfy { $0.notificationId == Self.notificationId })
        #expect(result.next == 1_795_860_190_000)
    }

    @Test("store.revokeDevices {deviceIds, revocationId?} → {deviceIds, sealedCopiesDeleted}")
    func revokeDevices() throws {
        #expect(
            try Fixture.params(Store.RevokeDevices.self, "store.revokeDevices")
                == Store.RevokeDevices.Params(
                    deviceIds: [DevicesContractTests.phone, DevicesContractTests.tablet],
                    revocationId: "5f0c2a9e-3b7d-4c1e-9a8b-7d6e5f4a3b2c"))
        #expect(
            try Fixture.params(Store.RevokeDevices.self, "store.revokeDevices", minimal: true)
                == Store.RevokeDevices.Params(deviceIds: [DevicesContractTests.phone]))
        #expect(
            try Fixture.result(Store.RevokeDevices.self, "store.revokeDevices")
                == Store.RevokeDevices.Result(deviceIds: 2, sealedCopiesDeleted: 3))
    }

    @Test("store.list {unreadOnly?, limit?, cursor?} → a page of summaries")
    func list() throws {
        let full = try Fixture.params(Store.List.self, "store.list")
        #expect(
            full
                == Store.List.Params(
                    unreadOnly: true, limit: 20, cursor: "eyJjcmVhdGVkQXQiOiIyMDI2LTExLTIyVDEwOjAwOjAwWiJ9"))
        #expect(try Fixture.params(Store.List.self, "store.list", minimal: true) == Store.List.Params())

        let page = try Fixture.result(Store.List.self, "store.list")
        #expect(page.nextCursor == "eyJjcmVhdGVkQXQiOiIyMDI2LTExLTIxVDE4OjMwOjAwWiJ9")
        #expect(
            page.items == [
                Store.NotificationSummary(
                    notificationId: Self.notificationId, createdAt: Self.createdAt, expiresAt: Self.expiresAt,
                    readAt: Self.readAt),
                Store.NotificationSummary(
                    notificationId: "7d9e5a10-3b2c-4f8e-a1d6-9c8b7a6f5e4d",
                    createdAt: Fixture.utc(2026, 11, 21, 18, 30, 0),
                    expiresAt: Fixture.utc(2026, 11, 28, 18, 30, 0),
                    readAt: Fixture.utc(2026, 11, 21, 18, 31, 7), gone: true),
            ])

        let last = try Fixture.result(Store.List.self, "store.list", minimal: true)
        #expect(last.nextCursor == nil)
        #expect(
            last.items == [
                Store.NotificationSummary(
                    notificationId: Self.notificationId, createdAt: Self.createdAt, expiresAt: Self.expiresAt)
            ])
    }

    @Test("store.markRead {notificationId} → {readAt}")
    func markRead() throws {
        #expect(try Fixture.params(Store.MarkRead.self, "store.markRead").notificationId == Self.notificationId)
        #expect(try Fixture.result(Store.MarkRead.self, "store.markRead").readAt == Self.readAt)
    }

    @Test("store.delete {notificationId} → {}")
    func delete() throws {
        #expect(try Fixture.params(Store.Delete.self, "store.delete").notificationId == Self.notificationId)
        #expect(try Fixture.result(Store.Delete.self, "store.delete") == Empty())
    }

    @Test("store.eraseUser {userId, deviceIds?} → {erased}")
    func eraseUser() throws {
        let user = "4f3c2a1e-8b7d-4c6a-9e5f-0a1b2c3d4e5f"
        let devices = ["a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d", "b2c3d4e5-f6a7-4b8c-9d0e-1f2a3b4c5d6e"]
        #expect(
            try Fixture.params(Store.EraseUser.self, "store.eraseUser")
                == Store.EraseUser.Params(userId: user, deviceIds: devices))
        #expect(
            try Fixture.params(Store.EraseUser.self, "store.eraseUser", minimal: true)
                == Store.EraseUser.Params(userId: user))
        #expect(
            try Fixture.result(Store.EraseUser.self, "store.eraseUser").erased == [
                "notifications": 3, "sealedCopies": 2, "receipts": 2, "proofs": 1, "revocations": 0,
            ])
    }
}
