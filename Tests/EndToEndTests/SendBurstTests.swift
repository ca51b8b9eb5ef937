import Foundation
import SecurePushClient
import SharedModels
import Testing

/// Concurrent sends, which push-dispatch stores together (`store.put` calls coalesced into `store.putMany`), through
/// the real services: each caller still gets its own notification, with its own payload and options.
@Suite("A burst of concurrent sends")
struct SendBurstTests {
    @Test("each of 40 concurrent sends to two users stores its own payload for its recipient; scheduled ones are held")
    func burstKeepsEachSendApart() async throws {
        try await TestStack.with(.cleartext) { stack in
            let (alice, aliceID) = try await stack.signedInDevice()
            let (bob, bobID) = try await stack.signedInDevice()
            let backend = try stack.backend()
            let sendAt = Date().addingTimeInterval(600)
            // (recipient, payload, scheduled, readOnce)
            let sends = (0..<40).map { index in
                (
                    index.isMultiple(of: 2) ? aliceID : bobID, "burst \(index) \(UUID().uuidString)",
                    index % 10 == 3, index % 4 == 1
                )
            }
            let sent = try await withThrowingTaskGroup(of: (Int, Push.Send.Result).self) { group in
                for (index, send) in sends.enumerated() {
                    group.addTask {
                        let result = try await backend.send(
                            .init(
                                recipientId: send.0, payload: send.1, readOnce: send.3 ? true : nil,
                                sendAt: send.2 ? sendAt : nil))
                        return (index, result)
                    }
                }
                return try await group.reduce(into: [Int: Push.Send.Result]()) { $0[$1.0] = $1.1 }
            }
            #expect(Set(sent.values.map(\.notificationId)).count == sends.count)
            for (index, send) in sends.enumerated() {
                let id = try #require(sent[index]).notificationId
                let (owner, other) = send.0 == aliceID ? (alice, bob) : (bob, alice)
                await #expect(throws: RPCError.self, "\(id) read by the other user") { try await other.fetch(id) }
                if send.2 {
                    // Held until sendAt: not even its recipient sees it yet, and its status says scheduled.
                    await #expect(throws: RPCError.self, "scheduled \(id) visible early") { try await owner.fetch(id) }
                    #expect(try await backend.status(notificationId: id).state == .scheduled)
                    continue
                }
                #expect(try await owner.fetch(id).payload == send.1)
                if send.3 {
                    await #expect(throws: RPCError.self, "read-once \(id) read twice") { try await owner.fetch(id) }
                } else {
                    #expect(try await owner.fetch(id).payload == send.1)
                }
            }
            await alice.shutdown()
            await bob.shutdown()
            await backend.shutdown()
        }
    }
}
