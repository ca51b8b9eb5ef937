import Foundation
import SharedModels
import Testing

@Suite("error responses keep their wire shape")
struct ErrorContractTests {
    /// One error response fixture and the constructor that must produce it.
    struct Case: Sendable, CustomStringConvertible {
        var fixture: String
        var error: RPCError
        /// The code written out, so a changed constant fails even if the fixture were regenerated.
        var code: Int
        var id: JSONValue
        var description: String { fixture }
    }

    static let cases: [Case] = [
        Case(fixture: "error.parseError", error: .parseError, code: -32700, id: .null),
        Case(
            fixture: "error.invalidRequest", error: .invalidRequest("'method' must be a string"), code: -32600,
            id: .null),
        Case(fixture: "error.methodNotFound", error: .methodNotFound("store.purge"), code: -32601, id: "req-7"),
        Case(
            fixture: "error.invalidParams.field",
            error: .invalidParams(field: "items[1].ttlSeconds", "must be a number"),
            code: -32602, id: "req-7"),
        Case(
            fixture: "error.invalidParams.general", error: .invalidParams("expected params as an object"), code: -32602,
            id: "req-7"),
        Case(fixture: "error.internalError", error: .internalError, code: -32603, id: "req-7"),
        Case(fixture: "error.unauthenticated", error: .unauthenticated(), code: -32001, id: "req-7"),
        Case(
            fixture: "error.unauthenticated.reason", error: .unauthenticated("token expired"), code: -32001, id: "req-7"
        ),
        Case(fixture: "error.forbidden", error: .forbidden(scope: Scope.pushSend), code: -32003, id: "req-7"),
        Case(fixture: "error.notFound", error: .notFound("notification"), code: -32004, id: "req-7"),
        Case(
            fixture: "error.gone", error: .gone(readAt: Fixture.utc(2026, 11, 22, 10, 5, 30)), code: -32010,
            id: "req-7"),
        Case(fixture: "error.conflict", error: .conflict("username is taken"), code: -32009, id: "req-7"),
        Case(fixture: "error.rateLimited", error: .rateLimited(retryAfterSeconds: 30), code: -32029, id: "req-7"),
        Case(fixture: "error.rateLimited.nodata", error: .rateLimited(), code: -32029, id: "req-7"),
        Case(
            fixture: "error.unavailable", error: .unavailable("notification-store", "connection refused"), code: -32050,
            id: "req-7"),
    ]

    @Test("the constructor's error, sent as a response, encodes to the fixture", arguments: cases)
    func encodes(errorCase: Case) throws {
        #expect(errorCase.error.code == errorCase.code)
        let response = RPCResponse(id: errorCase.id, outcome: .error(errorCase.error))
        let encoded = try RPCCodec.makeDecoder().decode(JSONValue.self, from: RPCCodec.makeEncoder().encode(response))
        #expect(encoded == (try Fixture.json(errorCase.fixture)))
    }

    @Test("the fixture decodes, as a client reads it, into the constructor's error", arguments: cases)
    func decodes(errorCase: Case) throws {
        let envelope = try RPCCodec.makeDecoder().decode(
            RPCResponseEnvelope<Empty>.self, from: Fixture.data(errorCase.fixture))
        #expect(envelope.error == errorCase.error)
        #expect(envelope.id == errorCase.id)
        #expect(envelope.result == nil)
    }

    @Test("every code in RPCErrorCode is pinned by a fixture")
    func everyCodeCovered() {
        let codes: [Int] = [
            RPCErrorCode.parseError, RPCErrorCode.invalidRequest, RPCErrorCode.methodNotFound,
            RPCErrorCode.invalidParams,
            RPCErrorCode.internalError, RPCErrorCode.unauthenticated, RPCErrorCode.forbidden, RPCErrorCode.notFound,
            RPCErrorCode.gone, RPCErrorCode.conflict, RPCErrorCode.rateLimited, RPCErrorCode.unavailable,
        ]
        #expect(Set(codes).count == codes.count, "two error codes share a value")
        #expect(Set(codes) == Set(Self.cases.map(\.code)))
    }
}
