import Foundation
import JSONRPC
import Testing

@Suite("batches")
struct BatchTests {
    static func batch(ofSums count: Int) -> String {
        "["
            + (0..<count).map { #"{"jsonrpc": "2.0", "method": "sum", "params": [\#($0), 1], "id": \#($0)}"# }.joined(
                separator: ",") + "]"
    }

    @Test("a batch longer than the default limit of 100 gets one -32600 naming the limit, and nothing runs")
    func overDefaultLimit() async throws {
        let recorder = CallRecorder()
        let dispatcher = SpecDispatcher.make(recorder: recorder)
        #expect(dispatcher.maxBatchLength == 100)
        let response = try await Wire.response(to: Self.batch(ofSums: 101), from: dispatcher)
        #expect(
            response
                == (try Wire.json(
                    #"{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request: batch of 101 calls exceeds the limit of 100"}, "id": null}"#
                )))
        #expect(await recorder.calls.isEmpty)
    }

    @Test("a batch of exactly the limit is served in order")
    func exactlyTheLimit() async throws {
        let response = try await Wire.response(to: Self.batch(ofSums: 100), from: SpecDispatcher.make())
        guard case .array(let elements) = try #require(response) else {
            Issue.record("expected an array, got \(String(describing: response))")
            return
        }
        #expect(elements.count == 100)
        #expect(elements.map { $0["id"] } == (0..<100).map { .int(Int64($0)) })
        #expect(elements.map { $0["result"] } == (0..<100).map { .int(Int64($0 + 1)) })
    }

    @Test("a custom limit is enforced")
    func customLimit() async throws {
        let dispatcher = SpecDispatcher.make(maxBatchLength: 2)
        let refused = try Wire.error(of: try await Wire.response(to: Self.batch(ofSums: 3), from: dispatcher))
        #expect(refused.code == -32600)
        #expect(refused.message.contains("limit of 2"))
        let served = try await Wire.response(to: Self.batch(ofSums: 2), from: dispatcher)
        #expect(
            served
                == (try Wire.json(
                    #"[{"jsonrpc": "2.0", "result": 1, "id": 0}, {"jsonrpc": "2.0", "result": 2, "id": 1}]"#)))
    }

    @Test("a notification to a failing or unknown method yields no element in a batch")
    func failingNotificationsLeaveNoElement() async throws {
        var dispatcher = HandlerErrorTests.dispatcher()
        dispatcher.register(Sum.self) { params, _ in params.reduce(0, +) }
        let body = """
            [
              {"jsonrpc": "2.0", "method": "fail", "params": {"kind": "internal"}},
              {"jsonrpc": "2.0", "method": "fail", "params": {"kind": "domain"}},
              {"jsonrpc": "2.0", "method": "fail", "params": {"wrong": 1}},
              {"jsonrpc": "2.0", "method": "unknown"},
              {"jsonrpc": "2.0", "method": "sum", "params": [1, 1], "id": "only"}
            ]
            """
        let response = try await Wire.response(to: body, from: dispatcher)
        #expect(response == (try Wire.json(#"[{"jsonrpc": "2.0", "result": 2, "id": "only"}]"#)))
    }

    @Test("errors in one element do not affect the others")
    func errorsAreIsolated() async throws {
        let body = """
            [
              {"jsonrpc": "2.0", "method": "fail", "params": {"kind": "internal"}, "id": 1},
              {"jsonrpc": "2.0", "method": "fail", "params": {"kind": "ok"}, "id": 2},
              {"jsonrpc": "2.0", "method": "fail", "params": {"kind": "domain"}, "id": 3}
            ]
            """
        let response = try await Wire.response(to: body, from: HandlerErrorTests.dispatcher())
        let expected = """
            [
              {"jsonrpc": "2.0", "error": {"code": -32603, "message": "Internal error"}, "id": 1},
              {"jsonrpc": "2.0", "result": 1, "id": 2},
              {"jsonrpc": "2.0", "error": {"code": -32042, "message": "Account overdrawn", "data": {"balance": -5}}, "id": 3}
            ]
            """
        #expect(response == (try Wire.json(expected)))
    }

    @Test("a batch nested in a batch is an invalid element, not a second batch")
    func nestedBatch() async throws {
        let response = try await Wire.response(
            to: #"[[{"jsonrpc": "2.0", "method": "sum", "params": [1], "id": 1}]]"#, from: SpecDispatcher.make())
        let expected = try Wire.json(
            #"[{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request: expected a request object, got array"}, "id": null}]"#
        )
        #expect(response == expected)
    }
}
