import Foundation
import SharedModels
import StoreService
import TestSupport
import Testing

@Suite("store.put")
struct StorePutTests {
    @Test("a notification put by a store:write client is read back by its recipient")
    func roundTrip() async throws {
        let harness = try await StoreHarness()
        let createdAt = harness.clock.now
        let put = try await harness.put(to: "alice", payload: "Your code is 4711 🔐", ttlSeconds: 3600)
        let fetched = try await harness.get(put.notificationId, as: "alice")

        #expect(fetched.notificationId == put.notificationId)
        #expect(fetched.payload == "Your code is 4711 🔐")
        #expect(fetched.expiresAt == put.expiresAt)
        #expect(abs(fetched.createdAt.timeIntervalSince(createdAt)) < 0.001)
        #expect(abs(fetched.expiresAt.timeIntervalSince(fetched.createdAt) - 3600) < 0.001)
        #expect(fetched.readAt == nil)
    }

    @Test("a user token cannot put: -32003 naming store:write")
    func userTokenIsForbidden() async throws {
        let harness = try await StoreHarness()
        let error = await rpcError {
            try await harness.client.call(
                Store.Put.self, .init(recipientId: "alice", payload: "x"),
                token: try await harness.signer.userToken("alice"))
        }
        #expect(error?.code == RPCErrorCode.forbidden)
        #expect(error?.data == .object(["requiredScope": .string(Scope.storeWrite)]))
        #expect(try await harness.storedRowCount() == 0)
    }

    /// Tokens `store.put` must refuse with `-32001`.
    enum BadToken: String, CaseIterable, Sendable {
        case missing, garbage, unknownKey, forgedSignatureWithKnownKid, expired

        func token(_ harness: StoreHarness) async throws -> String? {
            switch self {
            case .missing: return nil
            case .garbage: return "not-a-jwt"
            case .unknownKey:
                return try await TestSigner().writerToken()
            case .forgedSignatureWithKnownKid:
                let forger = try await TestSigner()
                return try await forger.token(
                    subject: "push-dispatch", scopes: [Scope.storeWrite], kid: harness.signer.kid)
            case .expired:
                return try await harness.signer.token(
                    subject: "push-dispatch", scopes: [Scope.storeWrite], issuedAt: Date().addingTimeInterval(-1000),
                    lifetime: 900)
            }
        }
    }

    @Test("store.put refuses a missing, malformed, foreign or expired token with -32001", arguments: BadToken.allCases)
    func badTokensAreUnauthenticated(_ badToken: BadToken) async throws {
        let harness = try await StoreHarness()
        let token = try await badToken.token(harness)
        let error = await rpcError {
            try await harness.client.call(Store.Put.self, .init(recipientId: "alice", payload: "x"), token: token)
        }
        #expect(error?.code == RPCErrorCode.unauthenticated)
        #expect(try await harness.storedRowCount() == 0)
    }

    @Test("without ttlSeconds a notification lives 7 days; up to 30 days may be asked for")
    func ttlDefaultsAndMaximum() async throws {
        let harness = try await StoreHarness()
        let start = harness.clock.now
        let byDefault = try await harness.put(to: "alice")
        #expect(abs(byDefault.expiresAt.timeIntervalSince(start) - 604_800) < 0.001)
        let longest = try await harness.put(to: "alice", ttlSeconds: 2_592_000)
        #expect(abs(longest.expiresAt.timeIntervalSince(start) - 2_592_000) < 0.001)
        let shortest = try await harness.put(to: "alice", ttlSeconds: 1)
        #expect(abs(shortest.expiresAt.timeIntervalSince(start) - 1) < 0.001)
    }

    @Test("ttlSeconds outside 1…30 days is -32602 naming ttlSeconds", arguments: [0, -1, 2_592_001, Int.max])
    func ttlOutOfBounds(_ ttl: Int) async throws {
        let harness = try await StoreHarness()
        let error = await rpcError { try await harness.put(to: "alice", ttlSeconds: ttl) }
        #expect(error?.code == RPCErrorCode.invalidParams)
        #expect(error?.field == "ttlSeconds")
    }

    @Test("the payload limit counts UTF-8 bytes, not characters")
    func payloadLimitCountsBytes() async throws {
        let harness = try await StoreHarness()
        // "é" is two bytes: 32,768 of them are exactly 64 KiB, one more is over; 64 Ki of them are far over.
        try await harness.put(to: "alice", payload: String(repeating: "a", count: 65_536))
        try await harness.put(to: "alice", payload: String(repeating: "é", count: 32_768))
        for payload in [
            String(repeating: "é", count: 32_769), String(repeating: "é", count: 65_536),
            String(repeating: "a", count: 65_537),
        ] {
            let error = await rpcError { try await harness.put(to: "alice", payload: payload) }
            #expect(error?.code == RPCErrorCode.invalidParams)
            #expect(error?.field == "payload")
        }
        #expect(try await harness.storedRowCount() == 2)
    }

    @Test("the payload limit is configurable")
    func payloadLimitIsConfigurable() async throws {
        let harness = try await StoreHarness(configuration: StoreConfiguration(maxPayloadBytes: 10))
        try await harness.put(to: "alice", payload: "0123456789")
        let error = await rpcError { try await harness.put(to: "alice", payload: "0123456789a") }
        #expect(error?.field == "payload")
    }

    @Test("an empty payload is -32602 naming payload")
    func emptyPayload() async throws {
        let harness = try await StoreHarness()
        let error = await rpcError { try await harness.put(to: "alice", payload: "") }
        #expect(error?.code == RPCErrorCode.invalidParams)
        #expect(error?.field == "payload")
    }

    @Test("recipientId must be 1–128 characters")
    func recipientIDBounds() async throws {
        let harness = try await StoreHarness()
        try await harness.put(to: String(repeating: "u", count: 128))
        for recipient in ["", String(repeating: "u", count: 129)] {
            let error = await rpcError { try await harness.put(to: recipient) }
            #expect(error?.code == RPCErrorCode.invalidParams)
            #expect(error?.field == "recipientId")
        }
    }

    @Test("recipientId is counted in UTF-8 bytes and refuses control characters, as push-dispatch checks it")
    func recipientIDBytes() async throws {
        let harness = try await StoreHarness()
        try await harness.put(to: String(repeating: "é", count: 64))
        for recipient in [String(repeating: "é", count: 65), "alice\u{0}", "bob\nmallory"] {
            let error = await rpcError { try await harness.put(to: recipient) }
            #expect(error?.code == RPCErrorCode.invalidParams)
            #expect(error?.field == "recipientId")
        }
    }

    @Test("ids are lowercase UUIDv4s, and 1,000 of them are all distinct")
    func idsAreRandomUUIDs() async throws {
        let harness = try await StoreHarness()
        let token = try await harness.signer.writerToken()
        var ids: Set<String> = []
        for index in 0..<1_000 {
            let put = try await harness.client.call(
                Store.Put.self, .init(recipientId: "alice", payload: "n\(index)"), token: token)
            ids.insert(put.notificationId)
        }
        #expect(ids.count == 1_000)
        let uuidV4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
        for id in ids {
            #expect(id.wholeMatch(of: uuidV4) != nil, "\(id) is not a lowercase UUIDv4")
        }
    }
}
