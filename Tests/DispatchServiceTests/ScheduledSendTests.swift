import DispatchService
import Foundation
import SharedModels
import Testing

/// `push.send` with `sendAt`, `push.cancel`, and the scheduled sends' round, on a hand-moved clock.
@Suite("Scheduled sends and push.cancel")
struct ScheduledSendTests {
    func schedule(
        _ harness: DispatchHarness, to recipient: String = "alice", in seconds: TimeInterval, key: String? = nil,
        sealedOnly: Bool? = nil, as sender: String = "app-backend"
    ) async throws -> Push.Send.Result {
        try await harness.client.call(
            Push.Send.self,
            .init(
                recipientId: recipient, payload: "your statement", idempotencyKey: key, sealedOnly: sealedOnly,
                sendAt: harness.clock.now.addingTimeInterval(seconds)),
            token: try await harness.signer.senderToken(sender))
    }

    func cancel(_ harness: DispatchHarness, _ id: String, as sender: String = "app-backend") async throws {
        _ = try await harness.client.call(
            Push.Cancel.self, .init(notificationId: id), token: try await harness.signer.senderToken(sender))
    }

    @Test(
        "a scheduled send answers its id at once, pushes nothing until due, then resolves the devices of that moment and queues them"
    )
    func dueThenSent() async throws {
        let harness = try await DispatchHarness()
        let early = try await harness.registerDevice(user: "alice")
        let scheduled = try await schedule(harness, in: 3_600)
        #expect(scheduled.deliveries.isEmpty)
        let put = try #require(harness.store.storedCalls.last?.params)
        #expect(put.sendAt == harness.clock.now.addingTimeInterval(3_600))
        #expect(put.recipientKeys == nil, "nothing is sealed before the devices are known")
        let waiting = try await harness.status(scheduled.notificationId)
        #expect(waiting.state == .scheduled)
        #expect(waiting.sendAt == harness.clock.now.addingTimeInterval(3_600))
        #expect(waiting.deliveries.isEmpty)
        #expect(try await harness.pendingIDs(early).isEmpty)
        #expect(try await harness.components.pushes.sendDueSchedules() == 0, "not due yet")

        let late = try await harness.registerDevice(user: "alice")
        harness.clock.advance(by: 3_600)
        #expect(try await harness.components.pushes.sendDueSchedules() == 1)
        #expect(try await harness.components.pushes.sendDueSchedules() == 0, "sent once")
        #expect(try await harness.pendingIDs(early) == [scheduled.notificationId])
        #expect(try await harness.pendingIDs(late) == [scheduled.notificationId])
        #expect(harness.store.publishCalls.map { $0.map(\.notificationId) } == [[scheduled.notificationId]])
        let sent = try await harness.status(scheduled.notificationId)
        #expect(sent.state == .sent)
        #expect(Set(sent.deliveries.map(\.deviceId)) == [early, late])
        #expect(sent.sendAt == waiting.sendAt)
    }

    @Test("sendAt in the past or under a second ahead is sent at once; beyond SECUREPUSH_MAX_SCHEDULE it is -32602")
    func bounds() async throws {
        let harness = try await DispatchHarness()
        let device = try await harness.registerDevice(user: "alice")
        let now = try await schedule(harness, in: 0.5)
        let past = try await schedule(harness, in: -60)
        #expect(now.deliveries.count == 1 && past.deliveries.count == 1)
        #expect(try await harness.pendingIDs(device) == [now.notificationId, past.notificationId])
        #expect(try await harness.status(now.notificationId).state == .sent)
        let far = await expectRPCError { _ = try await schedule(harness, in: 604_801) }
        #expect(far?.code == RPCErrorCode.invalidParams)
        #expect(far?.data == .object(["field": "sendAt"]))
        _ = try await schedule(harness, in: 604_800)
    }

    @Test(
        "cancel before due: {} (again {}), never pushed, the store's copy discarded; after sending -32009; another client's -32004"
    )
    func cancelling() async throws {
        let harness = try await DispatchHarness()
        let device = try await harness.registerDevice(user: "alice")
        let scheduled = try await schedule(harness, in: 60)
        try await cancel(harness, scheduled.notificationId)
        try await cancel(harness, scheduled.notificationId)
        #expect(harness.store.discarded == [scheduled.notificationId])
        #expect(try await harness.status(scheduled.notificationId).state == .cancelled)
        harness.clock.advance(by: 120)
        #expect(try await harness.components.pushes.sendDueSchedules() == 0)
        #expect(try await harness.pendingIDs(device).isEmpty)

        let other = try await schedule(harness, in: 60)
        let foreign = await expectRPCError { try await cancel(harness, other.notificationId, as: "someone-else") }
        #expect(foreign?.code == RPCErrorCode.notFound)
        harness.clock.advance(by: 60)
        #expect(try await harness.components.pushes.sendDueSchedules() == 1)
        let late = await expectRPCError { try await cancel(harness, other.notificationId) }
        #expect(late?.code == RPCErrorCode.conflict)
        #expect(late?.message == "Conflict: already sent")
        let immediate = try await harness.send(to: "alice")
        let unscheduled = await expectRPCError { try await cancel(harness, immediate.notificationId) }
        #expect(unscheduled?.code == RPCErrorCode.conflict)
        let missing = await expectRPCError { try await cancel(harness, UUID().uuidString.lowercased()) }
        #expect(missing?.code == RPCErrorCode.notFound)
    }

    @Test(
        "a cancel racing the due time has exactly one outcome per send: cancelled and never queued, or sent and -32009")
    func racingCancel() async throws {
        let harness = try await DispatchHarness()
        let device = try await harness.registerDevice(user: "alice")
        var ids: [String] = []
        for _ in 0..<40 { ids.append(try await schedule(harness, in: 5).notificationId) }
        harness.clock.advance(by: 5)
        let outcomes = try await withThrowingTaskGroup(of: (String, Bool).self) { group in
            group.addTask {
                while try await harness.components.pushes.sendDueSchedules() > 0 {}
                return ("", false)
            }
            for id in ids {
                group.addTask {
                    do {
                        try await cancel(harness, id)
                        return (id, true)
                    } catch let error as RPCError where error.code == RPCErrorCode.conflict {
                        return (id, false)
                    }
                }
            }
            var outcomes: [String: Bool] = [:]
            for try await (id, cancelled) in group where !id.isEmpty { outcomes[id] = cancelled }
            return outcomes
        }
        let pending = Set(try await harness.pendingIDs(device))
        for id in ids {
            let cancelled = try #require(outcomes[id] as Bool?)
            let state = try await harness.status(id).state
            #expect(state == (cancelled ? .cancelled : .sent))
            #expect(pending.contains(id) == !cancelled)
        }
    }

    @Test("a send to many with sendAt: ids answered now, every recipient's devices resolved and queued when due")
    func manyScheduled() async throws {
        let harness = try await DispatchHarness()
        let alice = try await harness.registerDevice(user: "alice")
        let result = try await harness.client.call(
            Push.SendToMany.self,
            .init(
                recipientIds: ["alice", "bob"], payload: "p", sendAt: harness.clock.now.addingTimeInterval(30)),
            token: try await harness.signer.senderToken())
        let bob = try await harness.registerDevice(user: "bob")
        #expect(try await harness.pendingIDs(alice).isEmpty)
        harness.clock.advance(by: 30)
        #expect(try await harness.components.pushes.sendDueSchedules() == 2)
        let ids = result.notifications.map(\.notificationId)
        #expect(try await harness.pendingIDs(alice) == [ids[0]])
        #expect(try await harness.pendingIDs(bob) == [ids[1]])
    }

    @Test(
        "when the store cannot publish, the claim waits 10 s past cancelling (the store may have shown it) and is then sent"
    )
    func storeDownAtDueTime() async throws {
        let harness = try await DispatchHarness()
        let device = try await harness.registerDevice(user: "alice")
        let scheduled = try await schedule(harness, in: 10)
        harness.clock.advance(by: 10)
        harness.store.setMode(.unreachable)
        #expect(try await harness.components.pushes.sendDueSchedules() == 1)
        #expect(try await harness.pendingIDs(device).isEmpty)
        #expect(try await harness.status(scheduled.notificationId).state == .sent, "its sending started")
        let late = await expectRPCError { try await cancel(harness, scheduled.notificationId) }
        #expect(late?.code == RPCErrorCode.conflict)
        harness.store.setMode(.up)
        #expect(try await harness.components.pushes.sendDueSchedules() == 0, "not before its retry delay")
        harness.clock.advance(by: 10)
        #expect(try await harness.components.pushes.sendDueSchedules() == 1)
        #expect(try await harness.pendingIDs(device) == [scheduled.notificationId])
    }

    @Test("a send the store refuses does not hold back the others of its round: they are sent, it is retried later")
    func poisonedSendIsolated() async throws {
        let harness = try await DispatchHarness()
        let alice = try await harness.registerDevice(user: "alice")
        let good = try await schedule(harness, to: "alice", in: 5)
        let bad = try await schedule(harness, to: "bob", in: 5)
        harness.store.refusePublishing(bad.notificationId)
        harness.clock.advance(by: 5)
        #expect(try await harness.components.pushes.sendDueSchedules() == 2)
        #expect(try await harness.pendingIDs(alice) == [good.notificationId])
        #expect(harness.store.publishCalls.map { $0.map(\.notificationId) }.contains([good.notificationId]))
        #expect(try await harness.status(good.notificationId).deliveries.count == 1)
        #expect(try await harness.components.pushes.sendDueSchedules() == 0)
        harness.clock.advance(by: 10)
        #expect(try await harness.components.pushes.sendDueSchedules() == 1, "the refused one is tried again")
    }

    @Test("a retry after sendAt passed that finds the first call's held copy records it due now, and it is published")
    func retryAfterDue() async throws {
        let harness = try await DispatchHarness()
        let device = try await harness.registerDevice(user: "alice")
        let sendAt = harness.clock.now.addingTimeInterval(30)
        let params = Push.Send.Params(
            recipientId: "alice", payload: "statement", idempotencyKey: "st-1", sendAt: sendAt)
        // The first call stored (held) and failed before recording: the store's answer is lost.
        harness.store.failAfterStoring(1)
        _ = await expectRPCError {
            _ = try await harness.client.call(Push.Send.self, params, token: try await harness.signer.senderToken())
        }
        harness.clock.advance(by: 60)
        let retried = try await harness.client.call(
            Push.Send.self, params, token: try await harness.signer.senderToken())
        #expect(retried.deliveries.isEmpty)
        #expect(try await harness.components.pushes.sendDueSchedules() == 1)
        #expect(try await harness.pendingIDs(device) == [retried.notificationId])
        #expect(harness.store.publishCalls.flatMap { $0.map(\.notificationId) } == [retried.notificationId])
    }
}
