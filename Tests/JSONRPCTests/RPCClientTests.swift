import Foundation
import JSONRPC
import Testing

enum WhoAmI: RPCMethod {
    static let name = "whoami"
    typealias Params = Empty
    typealias Result = String
}

@Suite("RPCClient over InProcessTransport")
struct RPCClientTests {
    let recorder = CallRecorder()
    let transport: RecordingTransport
    let client: RPCClient

    init() {
        var dispatcher = SpecDispatcher.make(recorder: recorder)
        dispatcher.register(WhoAmI.self) { _, context in
            guard let token = context.bearerToken else { throw RPCError.unauthenticated() }
            return "token:\(token)"
        }
        dispatcher.register(Fail.self) { _, _ in throw LedgerError.overdrawn(balance: -1) }
        let server = dispatcher
        transport = RecordingTransport(
            InProcessTransport(dispatcher: { server }, context: { Wire.context(bearerToken: $0) }))
        client = RPCClient(transport: transport, peerName: "spec-server")
    }

    @Test("a typed call returns the handler's result")
    func typedCall() async throws {
        #expect(try await client.call(Subtract.self, SubtractParams(minuend: 42, subtrahend: 23)) == 19)
        #expect(try await client.call(Sum.self, [1, 2, 4]) == 7)
        #expect(try await client.call(GetData.self, Empty()) == .array(["hello", 5]))
    }

    @Test("a call is a well-formed request with a string id, and the response echoes it")
    func callOnTheWire() async throws {
        _ = try await client.call(Sum.self, [1, 2])
        let exchange = try #require(transport.exchanges.last)
        let request = try JSONDecoder().decode(JSONValue.self, from: exchange.request)
        #expect(request["jsonrpc"] == "2.0")
        #expect(request["method"] == "sum")
        #expect(request["params"] == .array([1, 2]))
        guard case .string(let id) = try #require(request["id"]) else {
            Issue.record("a call's id must be a string")
            return
        }
        #expect(!id.isEmpty)
        let response = try JSONDecoder().decode(JSONValue.self, from: try #require(exchange.response))
        #expect(response["id"] == .string(id))
    }

    @Test("the bearer token reaches the handler's context")
    func tokenReachesHandler() async throws {
        #expect(try await client.call(WhoAmI.self, Empty(), token: "t0k3n") == "token:t0k3n")
        #expect(transport.exchanges.last?.bearerToken == "t0k3n")
    }

    @Test("a server error is thrown as RPCError with the same code, message and data")
    func serverError() async throws {
        let unauthenticated = await #expect(throws: RPCError.self) {
            try await client.call(WhoAmI.self, Empty())
        }
        #expect(unauthenticated == RPCError.unauthenticated())

        let domain = await #expect(throws: RPCError.self) {
            try await client.call(Fail.self, Fail.Params(kind: "any"))
        }
        #expect(domain?.code == -32042)
        #expect(domain?.message == "Account overdrawn")
        #expect(domain?.data == .object(["balance": -1]))

        let missing = await #expect(throws: RPCError.self) {
            try await client.call(
                PlaceOrder.self, OrderParams(customer: "a", address: .init(street: "s", number: 1), items: []))
        }
        #expect(missing?.code == RPCErrorCode.methodNotFound)
    }

    @Test("notify sends a request without an id, and the server runs it and answers nothing")
    func notify() async throws {
        try await client.notify(NotifyHello.self, [7])
        let exchange = try #require(transport.exchanges.last)
        let request = try JSONDecoder().decode(JSONValue.self, from: exchange.request)
        #expect(request == .object(["jsonrpc": "2.0", "method": "notify_hello", "params": .array([7])]))
        #expect(exchange.response == nil)
        #expect(await recorder.methods == ["notify_hello"])
    }

    @Test("an empty or malformed response is thrown as -32050 naming the peer")
    func brokenPeer() async throws {
        for response in [nil, Data("<html>".utf8), Data(#"{"jsonrpc": "2.0", "id": "1"}"#.utf8)] {
            let client = RPCClient(transport: CannedTransport(response: response), peerName: "spec-server")
            let error = await #expect(throws: RPCError.self) {
                try await client.call(Sum.self, [1])
            }
            #expect(error?.code == RPCErrorCode.unavailable)
            #expect(error?.message.hasPrefix("Dependency unavailable: spec-server:") == true)
            #expect(error?.data == .object(["dependency": "spec-server"]))
        }
    }
}
