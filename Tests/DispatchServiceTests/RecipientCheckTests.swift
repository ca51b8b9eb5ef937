import DispatchService
import Foundation
import ServiceCore
import SharedModels
import TestSupport
import Testing

@Suite("push.send refuses recipients auth does not know")
struct RecipientCheckTests {
    @Test("an unknown recipient is -32004 naming recipientId, and nothing is stored or recorded")
    func unknownRecipientStoresNothing() async throws {
        let harness = try await DispatchHarness()
        harness.auth.knowOnly(["alice"])

        let error = await expectRPCError { _ = try await harness.send(to: "ada", idempotencyKey: "order-1") }

        #expect(error?.code == RPCErrorCode.notFound)
        #expect(error?.data == .object(["field": "recipientId"]))
        #expect(error?.message.contains("'ada'") == true)
        #expect(harness.store.calls.isEmpty)
        #expect(try await harness.count("push_send") == 0)
        #expect(try await harness.count("idempotency_key") == 0)
        #expect(harness.auth.lookups == ["ada"])
        _ = try await harness.send(to: "alice")
        #expect(harness.store.storedCalls.map(\.params.recipientId) == ["alice"])
    }

    @Test("answers are cached briefly: a known user for a minute, an unknown one for seconds")
    func answersAreCachedBriefly() async throws {
        let harness = try await DispatchHarness()
        harness.auth.knowOnly(["alice"])
        _ = try await harness.send(to: "alice")
        _ = try await harness.send(to: "alice")
        _ = await expectRPCError { _ = try await harness.send(to: "bob") }
        _ = await expectRPCError { _ = try await harness.send(to: "bob") }
        #expect(harness.auth.lookups == ["alice", "bob"])

        // bob registers: within seconds his sends go through; alice is asked about again only after a minute.
        harness.auth.knowOnly(["alice", "bob"])
        harness.clock.advance(by: 6)
        _ = try await harness.send(to: "bob")
        _ = try await harness.send(to: "alice")
        #expect(harness.auth.lookups == ["alice", "bob", "bob"])
        harness.clock.advance(by: 60)
        _ = try await harness.send(to: "alice")
        #expect(harness.auth.lookups == ["alice", "bob", "bob", "alice"])
    }

    @Test("auth unreachable when a recipient must be checked is -32050 naming auth, and nothing is stored")
    func authDownForTheCheck() async throws {
        let harness = try await DispatchHarness()
        _ = try await harness.send(to: "alice")
        harness.auth.setUp(false)

        let error = await expectRPCError { _ = try await harness.send(to: "bob", idempotencyKey: "order-2") }

        #expect(error?.code == RPCErrorCode.unavailable)
        #expect(error?.data == .object(["dependency": "auth"]))
        #expect(harness.store.calls.count == 1)
        #expect(try await harness.count("push_send") == 1)
        #expect(try await harness.count("idempotency_key") == 0)
    }

    @Test("many distinct unknown recipients cannot grow the cache past its capacity")
    func cacheIsBounded() async throws {
        let signer = try await TestSigner()
        let auth = FakeAuth(signer: signer)
        auth.knowOnly([])
        let directory = RecipientDirectory(
            auth: auth.client,
            tokens: ClientCredentialsTokenProvider(
                auth: auth.client, clientID: FakeAuth.clientID, clientSecret: FakeAuth.clientSecret),
            lifetimes: .init(capacity: 3), now: { Date() })
        for index in 0..<10 {
            await #expect(throws: DispatchError.recipientNotFound("user-\(index)")) {
                try await directory.requireKnown("user-\(index)")
            }
        }
        #expect(await directory.cachedCount == 3)
        #expect(auth.lookups.count == 10)
    }
}
