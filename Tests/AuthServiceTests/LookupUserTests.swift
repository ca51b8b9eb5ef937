import AuthService
import Foundation
import ServiceCore
import SharedModels
import Testing

@Suite("auth.lookupUser")
struct LookupUserTests {
    private let backend = AuthHarness.backendClient
    private let dispatch = AuthHarness.dispatchClient

    private func harness() async throws -> AuthHarness {
        try await AuthHarness.withServiceClients()
    }

    @Test("a backend resolves a username to its user id, and a user id to its username")
    func backendResolvesBothWays() async throws {
        let auth = try await harness()
        let adaID = try await auth.register("ada")
        let token = try await auth.clientToken(backend)

        let byName = try await auth.rpc.call(Auth.LookupUser.self, .init(username: "ada"), token: token)
        #expect(byName == Auth.LookupUser.Result(userId: adaID, username: "ada"))
        let byID = try await auth.rpc.call(Auth.LookupUser.self, .init(userId: adaID), token: token)
        #expect(byID == byName)
    }

    @Test("push-dispatch's provisioned client may look users up; an unknown user is -32004")
    func dispatchClientAndUnknownUsers() async throws {
        let auth = try await harness()
        let adaID = try await auth.register("ada")
        let token = try await auth.clientToken(dispatch)
        #expect(try await auth.rpc.call(Auth.LookupUser.self, .init(userId: adaID), token: token).username == "ada")
        for params in [Auth.LookupUser.Params(userId: UUID().uuidString.lowercased()), .init(username: "eve")] {
            let error = await #expect(throws: RPCError.self) {
                try await auth.rpc.call(Auth.LookupUser.self, params, token: token)
            }
            #expect(error?.code == RPCErrorCode.notFound)
        }
    }

    @Test("people cannot look users up (-32003), nor can callers without a token (-32001)")
    func peopleAndAnonymousCallersAreRefused() async throws {
        let auth = try await harness()
        try await auth.register("ada")
        let grant = try await auth.login("ada")
        let forbidden = await #expect(throws: RPCError.self) {
            try await auth.rpc.call(Auth.LookupUser.self, .init(username: "ada"), token: grant.accessToken)
        }
        #expect(forbidden?.code == RPCErrorCode.forbidden)
        #expect(forbidden?.data == .object(["requiredScope": .string(Scope.usersRead)]))
        for token in [nil, "not-a-jwt"] {
            let unauthenticated = await #expect(throws: RPCError.self) {
                try await auth.rpc.call(Auth.LookupUser.self, .init(username: "ada"), token: token)
            }
            #expect(unauthenticated?.code == RPCErrorCode.unauthenticated)
        }
    }

    @Test("exactly one of userId and username, each at most 255 characters, or -32602")
    func paramsAreChecked() async throws {
        let auth = try await harness()
        let token = try await auth.clientToken(backend)
        let long = String(repeating: "a", count: 256)
        let cases: [(Auth.LookupUser.Params, JSONValue?)] = [
            (.init(), nil),
            (.init(userId: "x", username: "ada"), nil),
            (.init(userId: long), .object(["field": "userId"])),
            (.init(username: ""), .object(["field": "username"])),
            (.init(username: long), .object(["field": "username"])),
        ]
        for (params, data) in cases {
            let error = await #expect(throws: RPCError.self) {
                try await auth.rpc.call(Auth.LookupUser.self, params, token: token)
            }
            #expect(error?.code == RPCErrorCode.invalidParams)
            #expect(error?.data == data)
        }
    }
}

extension LookupUserTests {
    @Test(
        "auth.lookupUsers answers which ids auth knows, each once in the order named; bounds are -32602 naming userIds")
    func lookupMany() async throws {
        let auth = try await harness()
        let adaID = try await auth.register("ada")
        let bobID = try await auth.register("bob")
        let token = try await auth.clientToken(dispatch)
        let unknown = UUID().uuidString.lowercased()
        let long = String(repeating: "x", count: 300)
        let result = try await auth.rpc.call(
            Auth.LookupUsers.self, .init(userIds: [bobID, unknown, adaID, bobID, long]), token: token)
        #expect(
            result.users == [
                Auth.LookupUser.Result(userId: bobID, username: "bob"),
                Auth.LookupUser.Result(userId: adaID, username: "ada"),
            ])
        #expect(result.unknownUserIds == [unknown, long])
        for ids in [[], (0...Auth.LookupUsers.maxUserIDs).map { "id-\($0)" }] {
            let error = await #expect(throws: RPCError.self) {
                try await auth.rpc.call(Auth.LookupUsers.self, .init(userIds: ids), token: token)
            }
            #expect(error?.code == RPCErrorCode.invalidParams)
            #expect(error?.data == .object(["field": "userIds"]))
        }
        // 10,000 ids in one call (one read).
        let tenThousand = (0..<Auth.LookupUsers.maxUserIDs - 1).map { "missing-\($0)" } + [adaID]
        let big = try await auth.rpc.call(Auth.LookupUsers.self, .init(userIds: tenThousand), token: token)
        #expect(big.users.map(\.userId) == [adaID])
        #expect(big.unknownUserIds.count == Auth.LookupUsers.maxUserIDs - 1)
        let person = try await auth.login("ada")
        let forbidden = await #expect(throws: RPCError.self) {
            try await auth.rpc.call(Auth.LookupUsers.self, .init(userIds: [adaID]), token: person.accessToken)
        }
        #expect(forbidden?.code == RPCErrorCode.forbidden)
    }
}
