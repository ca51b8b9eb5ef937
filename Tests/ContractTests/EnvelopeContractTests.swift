import Foundation
import Logging
import SharedModels
import Testing

@Suite("request and response envelopes")
struct EnvelopeContractTests {
    static let fixtures = [
        "envelope.push.send.request", "envelope.push.send.response", "envelope.push.notify.notification",
    ]

    static let params = Push.Send.Params(
        recipientId: AuthContractTests.userId, payload: PushContractTests.payload, ttlSeconds: 86_400,
        idempotencyKey: "order-81723-shipped")
    static let result = Push.Send.Result(
        notificationId: StoreContractTests.notificationId,
        deliveries: [Push.Send.Delivery(deviceId: DevicesContractTests.phone, platform: .apns, status: .queued)])

    static func json(_ value: some Encodable) throws -> JSONValue {
        try RPCCodec.makeDecoder().decode(JSONValue.self, from: RPCCodec.makeEncoder().encode(value))
    }

    @Test("a push.send request envelope")
    func request() throws {
        let envelope = RPCRequestEnvelope(method: Push.Send.name, params: Self.params, id: "req-42")
        #expect(try Self.json(envelope) == (try Fixture.json("envelope.push.send.request")))
    }

    @Test("a push.send response envelope, as the server writes it and as the client reads it")
    func response() throws {
        let response = RPCResponse(id: "req-42", outcome: .result(Self.result))
        #expect(try Self.json(response) == (try Fixture.json("envelope.push.send.response")))

        let read = try RPCCodec.makeDecoder().decode(
            RPCResponseEnvelope<Push.Send.Result>.self, from: Fixture.data("envelope.push.send.response"))
        #expect(read.id == "req-42")
        #expect(read.result == Self.result)
        #expect(read.error == nil)
    }

    @Test("a push.notify notification has no id member, and its bytes are stable (sorted keys, unescaped slashes)")
    func notification() throws {
        let envelope = RPCRequestEnvelope(
            method: Push.Notify.name, params: Push.Notify.Params(notificationId: StoreContractTests.notificationId),
            id: nil)
        #expect(try Self.json(envelope) == (try Fixture.json("envelope.push.notify.notification")))
        let bytes = String(decoding: try RPCCodec.makeEncoder().encode(envelope), as: UTF8.self)
        #expect(
            bytes
                == #"{"jsonrpc":"2.0","method":"push.notify","params":{"notificationId":"c0ffee00-1234-4abc-8def-0123456789ab"}}"#
        )
        let slashes = String(decoding: try RPCCodec.makeEncoder().encode(["a/b"]), as: UTF8.self)
        #expect(slashes == #"["a/b"]"#)
    }

    @Test("the dispatcher answers the fixture request with the fixture response")
    func dispatcherServesFixture() async throws {
        var dispatcher = RPCDispatcher()
        dispatcher.register(Push.Send.self) { params, _ in
            #expect(params == Self.params)
            return Self.result
        }
        let context = RPCRequestContext(
            bearerToken: nil, logger: Logger(label: "ContractTests") { _ in SwiftLogNoOpLogHandler() })
        let body = try #require(
            await dispatcher.handle(body: Fixture.data("envelope.push.send.request"), context: context))
        #expect(
            try RPCCodec.makeDecoder().decode(JSONValue.self, from: body)
                == (try Fixture.json("envelope.push.send.response")))
    }

    @Test("a typed client call puts the fixture request on the wire, apart from its generated id")
    func clientWritesFixture() async throws {
        var dispatcher = RPCDispatcher()
        dispatcher.register(Push.Send.self) { _, _ in Self.result }
        let server = dispatcher
        let seen = RequestCapture()
        let transport = InProcessTransport(
            dispatcher: { server },
            context: {
                RPCRequestContext(
                    bearerToken: $0, logger: Logger(label: "ContractTests") { _ in SwiftLogNoOpLogHandler() })
            }
        )
        let client = RPCClient(
            transport: CapturingTransport(inner: transport, capture: seen), peerName: "push-dispatch")
        #expect(try await client.call(Push.Send.self, Self.params, token: "t") == Self.result)

        let sent = try #require(await seen.bodies.first)
        guard case .object(var members) = try RPCCodec.makeDecoder().decode(JSONValue.self, from: sent),
            case .object(var expected) = try Fixture.json("envelope.push.send.request")
        else {
            Issue.record("request envelopes must be objects")
            return
        }
        #expect(members.removeValue(forKey: "id") != nil)
        expected.removeValue(forKey: "id")
        #expect(members == expected)
    }
}

/// Keeps the request bodies a client sent.
actor RequestCapture {
    private(set) var bodies: [Data] = []
    func append(_ body: Data) { bodies.append(body) }
}

/// A transport that shows each request body to a capture before passing it on.
struct CapturingTransport: RPCTransport {
    let inner: any RPCTransport
    let capture: RequestCapture

    func post(_ body: Data, bearerToken: String?) async throws -> Data? {
        await capture.append(body)
        return try await inner.post(body, bearerToken: bearerToken)
    }
}
