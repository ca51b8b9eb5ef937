import Foundation
import SharedModels
import StoreService
import TestSupport
import Testing

@Suite("persistence")
struct StorePersistenceTests {
    @Test("notifications survive reopening the same SQLite file")
    func survivesReopen() async throws {
        let directory = TemporaryDirectory.processRootURL.appendingPathComponent(
            "store-tests-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = StoreConfiguration(databasePath: directory.appendingPathComponent("store.sqlite").path)
        let signer = try await TestSigner()
        let clock = TestClock()

        let put: Store.Put.Result
        do {
            let first = try await StoreHarness(configuration: configuration, signer: signer, clock: clock)
            put = try await first.put(to: "alice", payload: "still here")
            _ = try await first.client.call(
                Store.MarkRead.self, .init(notificationId: put.notificationId),
                token: try await signer.userToken("alice"))
        }

        let reopened = try await StoreHarness(configuration: configuration, signer: signer, clock: clock)
        let fetched = try await reopened.get(put.notificationId, as: "alice")
        #expect(fetched.payload == "still here")
        #expect(fetched.expiresAt == put.expiresAt)
        #expect(fetched.readAt != nil)
        #expect(try await reopened.list(as: "alice").items.map(\.notificationId) == [put.notificationId])
    }
}
