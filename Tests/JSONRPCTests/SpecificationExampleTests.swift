import Foundation
import JSONRPC
import Testing

/// Every example of section 7 of https://www.jsonrpc.org/specification, with the exact response expected.
@Suite("JSON-RPC 2.0 specification, section 7 examples")
struct SpecificationExampleTests {
    let recorder = CallRecorder()
    var dispatcher: RPCDispatcher { SpecDispatcher.make(recorder: recorder) }

    @Test("rpc call with positional parameters")
    func positionalParameters() async throws {
        let first = try await Wire.response(
            to: #"{"jsonrpc": "2.0", "method": "subtract", "params": [42, 23], "id": 1}"#, from: dispatcher)
        #expect(first == (try Wire.json(#"{"jsonrpc": "2.0", "result": 19, "id": 1}"#)))

        let second = try await Wire.response(
            to: #"{"jsonrpc": "2.0", "method": "subtract", "params": [23, 42], "id": 2}"#, from: dispatcher)
        #expect(second == (try Wire.json(#"{"jsonrpc": "2.0", "result": -19, "id": 2}"#)))
    }

    @Test("rpc call with named parameters, in either order")
    func namedParameters() async throws {
        let first = try await Wire.response(
            to: #"{"jsonrpc": "2.0", "method": "subtract", "params": {"subtrahend": 23, "minuend": 42}, "id": 3}"#,
            from: dispatcher)
        #expect(first == (try Wire.json(#"{"jsonrpc": "2.0", "result": 19, "id": 3}"#)))

        let second = try await Wire.response(
            to: #"{"jsonrpc": "2.0", "method": "subtract", "params": {"minuend": 42, "subtrahend": 23}, "id": 4}"#,
            from: dispatcher)
        #expect(second == (try Wire.json(#"{"jsonrpc": "2.0", "result": 19, "id": 4}"#)))
    }

    @Test("a notification runs the method and gets no response body (HTTP 204)")
    func notification() async throws {
        let update = await Wire.rawResponse(
            to: #"{"jsonrpc": "2.0", "method": "update", "params": [1,2,3,4,5]}"#, from: dispatcher)
        #expect(update == nil)
        let foobar = await Wire.rawResponse(to: #"{"jsonrpc": "2.0", "method": "foobar"}"#, from: dispatcher)
        #expect(foobar == nil)

        let calls = await recorder.calls
        #expect(calls.map(\.method) == ["update"])
        #expect(calls.first?.params == [1, 2, 3, 4, 5])
    }

    @Test("rpc call of a non-existent method gets -32601 naming the method")
    func nonExistentMethod() async throws {
        let response = try await Wire.response(
            to: #"{"jsonrpc": "2.0", "method": "foobar", "id": "1"}"#, from: dispatcher)
        #expect(
            response
                == (try Wire.json(
                    #"{"jsonrpc": "2.0", "error": {"code": -32601, "message": "Method not found: foobar"}, "id": "1"}"#))
        )
    }

    @Test("rpc call with invalid JSON gets -32700 with id null")
    func invalidJSON() async throws {
        let response = try await Wire.response(
            to: #"{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]"#, from: dispatcher)
        #expect(
            response
                == (try Wire.json(
                    #"{"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error"}, "id": null}"#)))
    }

    @Test("rpc call with an invalid Request object gets -32600 with id null")
    func invalidRequestObject() async throws {
        let response = try await Wire.response(
            to: #"{"jsonrpc": "2.0", "method": 1, "params": "bar"}"#, from: dispatcher)
        #expect(
            response
                == (try Wire.json(
                    #"{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request: 'method' must be a string"}, "id": null}"#
                )))
    }

    @Test("rpc call Batch with invalid JSON gets a single -32700, not an array")
    func batchWithInvalidJSON() async throws {
        let body = """
            [
              {"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},
              {"jsonrpc": "2.0", "method"
            ]
            """
        let response = try await Wire.response(to: body, from: dispatcher)
        #expect(
            response
                == (try Wire.json(
                    #"{"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error"}, "id": null}"#)))
        #expect(await recorder.calls.isEmpty)
    }

    @Test("rpc call with an empty Array gets a single -32600, not an array")
    func emptyArray() async throws {
        let response = try await Wire.response(to: "[]", from: dispatcher)
        #expect(
            response
                == (try Wire.json(
                    #"{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request: empty batch"}, "id": null}"#
                )))
    }

    @Test("rpc call with an invalid Batch [1] gets an array of one -32600")
    func invalidBatchOfOne() async throws {
        let response = try await Wire.response(to: "[1]", from: dispatcher)
        let expected = try Wire.json(
            #"[{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request: expected a request object, got number"}, "id": null}]"#
        )
        #expect(response == expected)
    }

    @Test("rpc call with an invalid Batch [1,2,3] gets three -32600")
    func invalidBatchOfThree() async throws {
        let response = try await Wire.response(to: "[1,2,3]", from: dispatcher)
        let element =
            #"{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request: expected a request object, got number"}, "id": null}"#
        #expect(response == (try Wire.json("[\(element), \(element), \(element)]")))
    }

    @Test("rpc call Batch: answers in request order and leaves out notifications")
    func mixedBatch() async throws {
        let body = """
            [
              {"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},
              {"jsonrpc": "2.0", "method": "notify_hello", "params": [7]},
              {"jsonrpc": "2.0", "method": "subtract", "params": [42,23], "id": "2"},
              {"foo": "boo"},
              {"jsonrpc": "2.0", "method": "foo.get", "params": {"name": "myself"}, "id": "5"},
              {"jsonrpc": "2.0", "method": "get_data", "id": "9"}
            ]
            """
        let expected = """
            [
              {"jsonrpc": "2.0", "result": 7, "id": "1"},
              {"jsonrpc": "2.0", "result": 19, "id": "2"},
              {"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request: 'jsonrpc' must be exactly \\"2.0\\""}, "id": null},
              {"jsonrpc": "2.0", "error": {"code": -32601, "message": "Method not found: foo.get"}, "id": "5"},
              {"jsonrpc": "2.0", "result": ["hello", 5], "id": "9"}
            ]
            """
        let response = try await Wire.response(to: body, from: dispatcher)
        #expect(response == (try Wire.json(expected)))
        #expect(await recorder.methods == ["sum", "notify_hello", "subtract", "get_data"])
    }

    @Test("rpc call Batch of notifications only gets no response body (HTTP 204)")
    func notificationOnlyBatch() async throws {
        let body = """
            [
              {"jsonrpc": "2.0", "method": "notify_sum", "params": [1,2,4]},
              {"jsonrpc": "2.0", "method": "notify_hello", "params": [7]}
            ]
            """
        #expect(await Wire.rawResponse(to: body, from: dispatcher) == nil)
        let calls = await recorder.calls
        #expect(calls.map(\.method) == ["notify_sum", "notify_hello"])
        #expect(calls.map(\.params) == [[1, 2, 4], [7]])
    }
}
