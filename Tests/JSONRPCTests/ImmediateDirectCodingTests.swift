import Foundation
import JSONRPC
import Testing

/// `greet`: params read directly (``RPCDirectDecodable``), a result written directly (``RPCDirectEncodable``).
private enum Greet: RPCMethod {
    struct Params: Codable, Sendable, RPCDirectDecodable {
        var name: String
        var title: String?

        init(params: RPCParamsReader) throws(RPCError) {
            name = try params.string("name")
            title = try params.optionalString("title")
        }
    }

    struct Result: Codable, Sendable, Equatable, RPCDirectEncodable {
        var greeting: String
        var length: Int

        func write(to writer: inout JSONWriter) {
            writer.beginObject()
            writer.key("greeting")
            writer.string(greeting)
            writer.key("length")
            writer.integer(Int64(length))
            writer.endObject()
        }
    }

    static let name = "greet"

    static func answer(_ params: Params) -> Result {
        let greeting = "Hello, " + [params.title, params.name].compactMap { $0 }.joined(separator: " ")
        return Result(greeting: greeting, length: greeting.count)
    }
}

@Suite("immediate answers written directly")
struct ImmediateDirectCodingTests {
    /// `greet` answered immediately (unless the name is "later"), and the same answer from its async handler.
    private static func dispatcher() -> RPCDispatcher {
        var dispatcher = RPCDispatcher()
        dispatcher.register(Greet.self) { params, _ in Greet.answer(params) }
        dispatcher.registerImmediate(Greet.self) { params, _ in
            params.name == "later" ? nil : Greet.answer(params)
        }
        return dispatcher
    }

    private static func immediate(_ body: String, from dispatcher: RPCDispatcher) throws -> String {
        guard case .answered(let data?) = dispatcher.handleImmediately(body: Data(body.utf8), context: Wire.context())
        else {
            Issue.record("expected an immediate answer to \(body)")
            return ""
        }
        return String(decoding: data, as: UTF8.self)
    }

    @Test(
        "a direct result is written as the encoder writes the response, for every kind of id",
        arguments: [#""a-1""#, "7", "-3", "null", #""\"quoted\" é""#, "1.5"])
    func sameBytesAsTheEncoder(id: String) async throws {
        let dispatcher = Self.dispatcher()
        let body = #"{"jsonrpc":"2.0","method":"greet","params":{"name":"Ada","title":"Dr."},"id":\#(id)}"#
        let written = try Self.immediate(body, from: dispatcher)
        let idValue = try JSONDecoder().decode(JSONValue.self, from: Data(id.utf8))
        let expected = try RPCCodec.makeEncoder().encode(
            RPCResponse(id: idValue, outcome: .result(Greet.Result(greeting: "Hello, Dr. Ada", length: 14))))
        #expect(written == String(decoding: expected, as: UTF8.self))
        // The async path (a suspended call) answers with the same bytes.
        let later = #"{"jsonrpc":"2.0","method":"greet","params":{"name":"later"},"id":\#(id)}"#
        guard case .suspend = dispatcher.handleImmediately(body: Data(later.utf8), context: Wire.context()) else {
            Issue.record("expected \(later) to suspend")
            return
        }
        let viaTask = try #require(await Wire.rawResponse(to: later, from: dispatcher))
        let expectedLater = try RPCCodec.makeEncoder().encode(
            RPCResponse(id: idValue, outcome: .result(Greet.Result(greeting: "Hello, later", length: 12))))
        #expect(viaTask == expectedLater)
    }

    @Test("directly read params refuse what the decoder refuses, with the same -32602 messages")
    func paramsRefused() throws {
        let dispatcher = Self.dispatcher()
        let cases: [(params: String, message: String)] = [
            (#"{}"#, "Invalid params: 'name' is required"),
            (#"{"name":null}"#, "Invalid params: 'name' must not be null (expected a string)"),
            (#"{"name":5}"#, "Invalid params: 'name' must be a string"),
            (#"{"name":"Ada","title":[]}"#, "Invalid params: 'title' must be a string"),
            (#"["Ada"]"#, "Invalid params: expected params as an object"),
        ]
        for (params, message) in cases {
            let body = #"{"jsonrpc":"2.0","method":"greet","params":\#(params),"id":1}"#
            let answer = try Wire.json(Self.immediate(body, from: dispatcher))
            let error = try Wire.error(of: answer)
            #expect(error.code == -32602, "\(params)")
            #expect(error.message == message, "\(params)")
        }
    }
}
