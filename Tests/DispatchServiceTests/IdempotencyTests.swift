import DispatchService
import Foundation
import SharedModels
import TestSupport
import Testing

@Suite("push.send idempotency")
struct IdempotencyTests {
    @Test("the same key from the same client returns the first result and calls the store once")
    func sameKeySameClient() async throws {
        let harness = try await DispatchHarness()
        let device = try await harness.registerDevice(user: "alice")
        let first = try await harness.send(to: "alice", payload: "first", idempotencyKey: "order-1")
        _ = try await harness.registerDevice(user: "alice")  // must not change the replayed result
        let again = try await harness.send(to: "alice", payload: "first", idempotencyKey: "order-1")

        #expect(again == first)
        #expect(harness.store.calls.count == 1)
        #expect(try await harness.pendingIDs(device) == [first.notificationId])
        #expect(try await harness.count("delivery") == 1)
    }

    @Test("the same key from another client is a separate send")
    func sameKeyOtherClient() async throws {
        let harness = try await DispatchHarness()
        let device = try await harness.registerDevice(user: "alice")
        let fromShop = try await harness.send(to: "alice", idempotencyKey: "order-1", as: "shop")
        let fromBank = try await harness.send(to: "alice", idempotencyKey: "order-1", as: "bank")

        #expect(fromShop.notificationId != fromBank.notificationId)
        #expect(harness.store.calls.count == 2)
        #expect(try await harness.pendingIDs(device) == [fromShop.notificationId, fromBank.notificationId])
    }

    @Test("sends without a key are never deduplicated")
    func noKeyNoDeduplication() async throws {
        let harness = try await DispatchHarness()
        let first = try await harness.send(to: "alice")
        let second = try await harness.send(to: "alice")
        #expect(first.notificationId != second.notificationId)
        #expect(harness.store.calls.count == 2)
    }

    @Test("concurrent duplicates: one store call, the others get -32009 while it is in progress")
    func concurrentDuplicates() async throws {
        let harness = try await DispatchHarness()
        let device = try await harness.registerDevice(user: "alice")
        harness.store.closeGate()
        defer { harness.store.openGate() }

        let first = Task { try await harness.send(to: "alice", idempotencyKey: "once") }
        // Bounded wait until the first call holds the reservation and sits in the store.
        for _ in 0..<500 where harness.store.heldCount == 0 { try await Task.sleep(for: .milliseconds(10)) }
        try #require(harness.store.heldCount == 1)

        let duplicates = await withTaskGroup(of: RPCError?.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    await expectRPCError { _ = try await harness.send(to: "alice", idempotencyKey: "once") }
                }
            }
            return await group.reduce(into: [RPCError?]()) { $0.append($1) }
        }
        #expect(duplicates.count == 4)
        for error in duplicates {
            #expect(error?.code == RPCErrorCode.conflict)
            #expect(error?.message.contains("a send with this idempotency key is in progress") == true)
        }

        harness.store.openGate()
        let result = try await first.value
        #expect(harness.store.calls.count == 1)
        #expect(try await harness.send(to: "alice", idempotencyKey: "once") == result)
        #expect(try await harness.pendingIDs(device) == [result.notificationId])
    }

    @Test(
        "on SQLite a reservation left pending by a process that died is released at start: its retry succeeds at once")
    func pendingReleasedAtStart() async throws {
        let directory = TemporaryDirectory.processRootURL.appendingPathComponent("idempotency-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("dispatch.sqlite").path
        let crashed = try await DispatchHarness(configuration: DispatchHarness.configuration(databasePath: path))
        crashed.store.closeGate()
        let inFlight = Task { try await crashed.send(to: "alice", idempotencyKey: "order-7") }
        for _ in 0..<500 where crashed.store.heldCount == 0 { try await Task.sleep(for: .milliseconds(10)) }
        try #require(crashed.store.heldCount == 1)
        // The same file opened again, as a restarted push-dispatch would (the first one never finishes its send).
        let restarted = try await DispatchHarness(configuration: DispatchHarness.configuration(databasePath: path))
        let retried = try await restarted.send(to: "alice", idempotencyKey: "order-7")
        #expect(restarted.store.calls.count == 1)
        #expect(try await restarted.send(to: "alice", idempotencyKey: "order-7") == retried)
        crashed.store.openGate()
        _ = try? await inFlight.value  // its reservation was taken: it must not record a second send
        #expect(try await restarted.count("push_send") == 1)
    }
}
