import Foundation
import Logging
import ServiceLifecycle
import SharedModels
import StoreService
import Testing

@Suite("expiry and purge")
struct StoreExpiryTests {
    @Test("an expired notification is gone from get and list before the purge runs, and the purge removes it")
    func expiredIsGone() async throws {
        let harness = try await StoreHarness()
        let shortLived = try await harness.put(to: "alice", ttlSeconds: 60)
        let longLived = try await harness.put(to: "alice", ttlSeconds: 3600)

        harness.clock.advance(by: 59.999)
        #expect(
            try await harness.get(shortLived.notificationId, as: "alice").notificationId == shortLived.notificationId)

        harness.clock.advance(by: 0.001)  // exactly expiresAt
        let error = await rpcError { try await harness.get(shortLived.notificationId, as: "alice") }
        #expect(error?.code == RPCErrorCode.notFound)
        #expect(try await harness.list(as: "alice").items.map(\.notificationId) == [longLived.notificationId])
        let markError = await rpcError {
            try await harness.client.call(
                Store.MarkRead.self, .init(notificationId: shortLived.notificationId),
                token: try await harness.signer.userToken("alice"))
        }
        #expect(markError?.code == RPCErrorCode.notFound)
        #expect(try await harness.storedRowCount() == 2)

        #expect(try await harness.components.store.purgeExpired() == 1)
        #expect(try await harness.storedRowCount() == 1)
        #expect(try await harness.get(longLived.notificationId, as: "alice").notificationId == longLived.notificationId)
    }

    @Test("the purge worker deletes expired notifications while the service runs")
    func purgeWorkerRuns() async throws {
        let harness = try await StoreHarness(configuration: StoreConfiguration(purgeInterval: .milliseconds(20)))
        try await harness.put(to: "alice", ttlSeconds: 1)
        harness.clock.advance(by: 2)

        let group = ServiceGroup(services: harness.components.services, logger: .quiet)
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            var remaining = try await harness.storedRowCount()
            var polls = 0
            while remaining > 0, polls < 250 {
                try await Task.sleep(for: .milliseconds(20))
                remaining = try await harness.storedRowCount()
                polls += 1
            }
            #expect(remaining == 0)
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }
}
