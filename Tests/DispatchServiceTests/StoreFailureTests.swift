import DispatchService
import Foundation
import SharedModels
import Testing

@Suite("push.send when a dependency fails")
struct StoreFailureTests {
    @Test(
        "the store unreachable is -32050 and nothing is recorded; a retry with the same key succeeds later",
        arguments: [FakeStore.Mode.unreachable, .failing])
    func storeDownRecordsNothing(mode: FakeStore.Mode) async throws {
        let harness = try await DispatchHarness()
        let device = try await harness.registerDevice(user: "alice")
        harness.store.setMode(mode)

        let error = await expectRPCError { _ = try await harness.send(to: "alice", idempotencyKey: "order-42") }
        #expect(error?.code == RPCErrorCode.unavailable)
        #expect(error?.data == .object(["dependency": "notification-store"]))
        #expect(try await harness.count("push_send") == 0)
        #expect(try await harness.count("delivery") == 0)
        #expect(try await harness.pendingIDs(device).isEmpty)

        harness.store.setMode(.up)
        // The released key keeps what it was first used with: the store may have kept part of a failed call.
        let other = await expectRPCError {
            _ = try await harness.send(to: "alice", payload: "another text", idempotencyKey: "order-42")
        }
        #expect(other?.data == .object(["field": "idempotencyKey"]))
        let retried = try await harness.send(to: "alice", idempotencyKey: "order-42")
        #expect(harness.store.storedCalls.map(\.notificationID) == [retried.notificationId])
        #expect(try await harness.pendingIDs(device) == [retried.notificationId])
        #expect(try await harness.status(retried.notificationId).deliveries.map(\.status) == [.queued])
    }

    @Test("auth unreachable for push-dispatch's own token is -32050 naming auth, and nothing is recorded")
    func authDownForOwnToken() async throws {
        let harness = try await DispatchHarness()
        _ = try await harness.registerDevice(user: "alice")
        harness.auth.setUp(false)

        let error = await expectRPCError { _ = try await harness.send(to: "alice", idempotencyKey: "k") }
        #expect(error?.code == RPCErrorCode.unavailable)
        #expect(error?.data == .object(["dependency": "auth"]))
        #expect(harness.store.calls.isEmpty)
        #expect(try await harness.count("push_send") == 0)
        #expect(try await harness.count("idempotency_key") == 0)
    }

    @Test("wrong dispatch client credentials make push.send fail with -32050, not blame the caller")
    func wrongDispatchCredentials() async throws {
        var configuration = DispatchHarness.configuration()
        configuration.dispatchClientSecret = "not-the-secret"
        let harness = try await DispatchHarness(configuration: configuration)
        let error = await expectRPCError { _ = try await harness.send(to: "alice") }
        #expect(error?.code == RPCErrorCode.unavailable)
        #expect(harness.store.calls.isEmpty)
    }
}
