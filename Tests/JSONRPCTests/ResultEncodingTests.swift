import Foundation
import JSONRPC
import TestSupport
import Testing

enum Ratio: RPCMethod {
    static let name = "ratio"
    typealias Params = [Double]
    typealias Result = Double
}

@Suite("results that cannot be encoded")
struct ResultEncodingTests {
    var dispatcher: RPCDispatcher {
        var dispatcher = RPCDispatcher()
        dispatcher.register(Ratio.self) { params, _ in params[0] / params[1] }
        return dispatcher
    }

    @Test("an unencodable result (NaN) gives -32603 with the request's id, and the reason goes to the log")
    func singleCall() async throws {
        let logs = RecordedLog()
        let response = try await Wire.response(
            to: #"{"jsonrpc": "2.0", "method": "ratio", "params": [0, 0], "id": 5}"#, from: dispatcher,
            context: Wire.context(logger: logs.logger()))
        #expect(
            response
                == (try Wire.json(
                    #"{"jsonrpc": "2.0", "error": {"code": -32603, "message": "Internal error"}, "id": 5}"#)))
        #expect(logs.all.contains { $0.message == "rpc.result.unencodable" && $0.level == .error })
    }

    @Test("an unencodable result in a batch spoils only its own element")
    func inBatch() async throws {
        let body = """
            [
              {"jsonrpc": "2.0", "method": "ratio", "params": [1, 2], "id": 1},
              {"jsonrpc": "2.0", "method": "ratio", "params": [0, 0], "id": 2},
              {"jsonrpc": "2.0", "method": "ratio", "params": [3, 4], "id": 3}
            ]
            """
        let expected = """
            [
              {"jsonrpc": "2.0", "result": 0.5, "id": 1},
              {"jsonrpc": "2.0", "error": {"code": -32603, "message": "Internal error"}, "id": 2},
              {"jsonrpc": "2.0", "result": 0.75, "id": 3}
            ]
            """
        #expect(try await Wire.response(to: body, from: dispatcher) == (try Wire.json(expected)))
    }
}
