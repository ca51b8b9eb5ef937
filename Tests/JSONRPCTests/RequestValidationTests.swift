import Foundation
import JSONRPC
import Testing

@Suite("request objects are validated to the letter and ids are echoed exactly")
struct RequestValidationTests {
    let dispatcher = SpecDispatcher.make()

    @Test(
        "a legal id is echoed exactly",
        arguments: [
            #""abc-123""#, #""""#, #""1""#, "0", "7", "-42", "9007199254740993", "9223372036854775807",
            "-9223372036854775808", "1.5", "-0.25", "null",
        ])
    func idIsEchoed(id: String) async throws {
        let raw = try #require(
            await Wire.rawResponse(
                to: #"{"jsonrpc": "2.0", "method": "sum", "params": [2, 3], "id": \#(id)}"#, from: dispatcher))
        let response = try JSONDecoder().decode(JSONValue.self, from: raw)
        #expect(response == (try Wire.json(#"{"jsonrpc": "2.0", "result": 5, "id": \#(id)}"#)))
        // Parsed values could hide a lossy number conversion; the literal must come back as sent.
        #expect(String(decoding: raw, as: UTF8.self).contains(#""id":\#(id)"#))
    }

    @Test("an id that is a string keeps its exact characters")
    func stringIDWithEscapes() async throws {
        let response = try await Wire.response(
            to: #"{"jsonrpc": "2.0", "method": "sum", "params": [1], "id": "ä \"q\" \\ /"}"#, from: dispatcher)
        #expect(response?["id"] == .string(#"ä "q" \ /"#))
    }

    @Test(
        "'jsonrpc' other than \"2.0\" is an invalid request",
        arguments: [#""jsonrpc": "1.0", "#, "", #""jsonrpc": 2.0, "#, #""jsonrpc": "2.0 ", "#, #""jsonrpc": null, "#])
    func wrongVersion(member: String) async throws {
        let response = try await Wire.response(
            to: #"{\#(member)"method": "sum", "params": [1], "id": 8}"#, from: dispatcher)
        #expect(
            response
                == (try Wire.json(
                    #"{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request: 'jsonrpc' must be exactly \"2.0\""}, "id": 8}"#
                )))
    }

    @Test(
        "'method' that is missing or not a string is an invalid request",
        arguments: ["", #""method": 1, "#, #""method": null, "#, #""method": ["sum"], "#])
    func methodNotAString(member: String) async throws {
        let response = try await Wire.response(
            to: #"{"jsonrpc": "2.0", \#(member)"params": [1], "id": 9}"#, from: dispatcher)
        let error = try Wire.error(of: response)
        #expect(error.code == -32600)
        #expect(error.message == "Invalid Request: 'method' must be a string")
        #expect(response?["id"] == 9)
    }

    @Test("'params' that is not an object or array is an invalid request", arguments: [#""bar""#, "3", "true", "null"])
    func paramsNotStructured(params: String) async throws {
        let response = try await Wire.response(
            to: #"{"jsonrpc": "2.0", "method": "sum", "params": \#(params), "id": 10}"#, from: dispatcher)
        #expect(
            response
                == (try Wire.json(
                    #"{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request: 'params' must be an object or an array"}, "id": 10}"#
                )))
    }

    @Test(
        "an id that is an object, array or boolean is an invalid request answered with id null",
        arguments: [#"{"a": 1}"#, "[1]", "true"])
    func illegalID(id: String) async throws {
        let response = try await Wire.response(
            to: #"{"jsonrpc": "2.0", "method": "sum", "params": [1], "id": \#(id)}"#, from: dispatcher)
        #expect(
            response
                == (try Wire.json(
                    #"{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request: 'id' must be a string, number or null"}, "id": null}"#
                )))
    }

    @Test("a single request that is not an object gets -32600", arguments: ["1", #""call""#, "null", "true"])
    func notAnObject(body: String) async throws {
        let error = try Wire.error(of: try await Wire.response(to: body, from: dispatcher))
        #expect(error.code == -32600)
        #expect(error.message.hasPrefix("Invalid Request: expected a request object"))
    }

    @Test("a body that is not JSON at all gets -32700", arguments: ["", "   ", "{", "1 2", "\u{FF}\u{FE}"])
    func notJSON(body: String) async throws {
        let response = try await Wire.response(to: body, from: dispatcher)
        #expect(
            response
                == (try Wire.json(
                    #"{"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error"}, "id": null}"#)))
    }

    @Test("an invalid request without an id is still answered, since it cannot be known to be a notification")
    func invalidNotificationIsAnswered() async throws {
        let error = try Wire.error(
            of: try await Wire.response(to: #"{"jsonrpc": "1.0", "method": "sum"}"#, from: dispatcher))
        #expect(error.code == -32600)
    }

    @Test("a notification to an unknown method gets no response")
    func unknownNotification() async throws {
        #expect(
            await Wire.rawResponse(to: #"{"jsonrpc": "2.0", "method": "nope", "params": {}}"#, from: dispatcher) == nil)
    }

    @Test("a call without params is served as if params were {}")
    func missingParams() async throws {
        let response = try await Wire.response(
            to: #"{"jsonrpc": "2.0", "method": "get_data", "id": "d"}"#, from: dispatcher)
        #expect(response == (try Wire.json(#"{"jsonrpc": "2.0", "result": ["hello", 5], "id": "d"}"#)))
    }

    @Test("a response carries exactly jsonrpc, id and one of result or error")
    func responseMembers() async throws {
        let success = try #require(
            try await Wire.response(
                to: #"{"jsonrpc": "2.0", "method": "sum", "params": [1], "id": 1}"#, from: dispatcher))
        let failure = try #require(
            try await Wire.response(to: #"{"jsonrpc": "2.0", "method": "nope", "id": 1}"#, from: dispatcher))
        guard case .object(let successMembers) = success, case .object(let failureMembers) = failure else {
            Issue.record("responses must be objects")
            return
        }
        #expect(Set(successMembers.keys) == ["jsonrpc", "id", "result"])
        #expect(Set(failureMembers.keys) == ["jsonrpc", "id", "error"])
    }
}
