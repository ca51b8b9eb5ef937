import Foundation
import ServiceCore
import StoreService
import TestSupport
import Testing

@Suite("a stored payload that does not open")
struct TamperedPayloadTests {
    @Test("an altered row makes store.get fail with an error and the security event store.payload.unreadable")
    func alteredRow() async throws {
        let database = try ServiceDatabase.sqlite(path: nil, migrations: StoreMigrations.all).sql
        let log = RecordedLog()
        let store = NotificationStore(
            repository: SQLNotificationRepository(database: database, sealer: AESGCMPayloadSealer(ring: .generate())),
            logger: log.logger())
        let stored = try await store.put(recipientID: "ada", payload: "wire the money", ttlSeconds: nil)
        var bytes = try #require(
            try await database.readOne("SELECT payload FROM notification", [])?.decode(0, as: Data.self))
        bytes[bytes.count / 2] ^= 0x80
        _ = try await database.execute("UPDATE notification SET payload = ?", [bytes])

        await #expect(throws: PayloadSealerError.self) { try await store.get(id: stored.id, recipientID: "ada") }
        let events = log.securityEvents("store.payload.unreadable")
        #expect(events.count == 1)
        #expect(events.first?.metadata["notification.id"] == "\(stored.id)")
        #expect(events.first.map { "\($0.metadata)" }?.contains("wire the money") == false)
    }
}
