import Foundation
import JSONRPC
import TestSupport
import Testing

/// A domain error of the kind a service defines: it picks its own wire form.
enum LedgerError: Error, RPCErrorConvertible {
    case overdrawn(balance: Int)

    var rpcError: RPCError {
        switch self {
        case .overdrawn(let balance):
            RPCError(code: -32042, message: "Account overdrawn", data: .object(["balance": .int(Int64(balance))]))
        }
    }
}

/// An error whose text must never reach a client.
struct DatabaseFailure: Error, CustomStringConvertible {
    var description: String { "SQLITE_CORRUPT: /var/lib/securepush/secret.db password=hunter2" }
}

enum Fail: RPCMethod {
    static let name = "fail"

    struct Params: Codable, Sendable {
        var kind: String
    }

    typealias Result = Int
}

@Suite("errors thrown by handlers")
struct HandlerErrorTests {
    static func dispatcher() -> RPCDispatcher {
        var dispatcher = RPCDispatcher()
        dispatcher.register(Fail.self) { params, _ in
            switch params.kind {
            case "internal": throw DatabaseFailure()
            case "domain": throw LedgerError.overdrawn(balance: -5)
            case "rpc": throw RPCError.notFound("notification")
            case "cancellation": throw CancellationError()
            case "wait":
                // Ends only when the call is cancelled, as a handler does whose client went away mid-call.
                while !Task.isCancelled { try? await Task.sleep(for: .milliseconds(5)) }
                throw CancellationError()
            default: return 1
            }
        }
        return dispatcher
    }

    @Test("a handler throwing a non-RPC error gives -32603 'Internal error' and leaks nothing")
    func internalError() async throws {
        let logs = RecordedLog()
        let raw = try #require(
            await Wire.rawResponse(
                to: #"{"jsonrpc": "2.0", "method": "fail", "params": {"kind": "internal"}, "id": 3}"#,
                from: Self.dispatcher(), context: Wire.context(logger: logs.logger())))
        let response = try JSONDecoder().decode(JSONValue.self, from: raw)
        #expect(
            response
                == (try Wire.json(
                    #"{"jsonrpc": "2.0", "error": {"code": -32603, "message": "Internal error"}, "id": 3}"#)))
        let text = String(decoding: raw, as: UTF8.self)
        #expect(!text.contains("SQLITE"))
        #expect(!text.contains("hunter2"))
        #expect(!text.contains("DatabaseFailure"))

        // The details belong in the server log instead.
        let entry = try #require(logs.all.first { $0.message == "rpc.handler.failed" })
        #expect(entry.level == .error)
        #expect(entry.metadata["rpc.method"] == "fail")
        #expect(entry.metadata["error"]?.description.contains("SQLITE_CORRUPT") == true)
    }

    @Test("a call cancelled because its client went away is logged at debug, not as a handler failure")
    func cancelledCall() async throws {
        let logs = RecordedLog()
        let call = Task {
            await Wire.rawResponse(
                to: #"{"jsonrpc": "2.0", "method": "fail", "params": {"kind": "wait"}, "id": 4}"#,
                from: Self.dispatcher(), context: Wire.context(logger: logs.logger()))
        }
        call.cancel()
        let raw = try #require(await call.value)
        let response = try JSONDecoder().decode(JSONValue.self, from: raw)
        #expect(response["error"]?["code"] == .int(-32603))
        #expect(logs.count("rpc.handler.failed") == 0)
        let entry = try #require(logs.all.first { $0.message == "rpc.handler.cancelled" })
        #expect(entry.level == .debug)
        #expect(entry.metadata["rpc.method"] == "fail")
    }

    @Test("a CancellationError with no cancellation behind it is still logged as a handler failure")
    func uncancelledCancellationError() async throws {
        let logs = RecordedLog()
        _ = await Wire.rawResponse(
            to: #"{"jsonrpc": "2.0", "method": "fail", "params": {"kind": "cancellation"}, "id": 5}"#,
            from: Self.dispatcher(), context: Wire.context(logger: logs.logger()))
        let entry = try #require(logs.all.first { $0.message == "rpc.handler.failed" })
        #expect(entry.level == .error)
        #expect(logs.count("rpc.handler.cancelled") == 0)
    }

    @Test("a handler throwing an RPCErrorConvertible domain error gets its own code, message and data")
    func domainError() async throws {
        let response = try await Wire.response(
            to: #"{"jsonrpc": "2.0", "method": "fail", "params": {"kind": "domain"}, "id": "x"}"#,
            from: Self.dispatcher())
        #expect(
            response
                == (try Wire.json(
                    #"{"jsonrpc": "2.0", "error": {"code": -32042, "message": "Account overdrawn", "data": {"balance": -5}}, "id": "x"}"#
                )))
    }

    @Test("a handler throwing an RPCError sends it unchanged")
    func rpcError() async throws {
        let response = try await Wire.response(
            to: #"{"jsonrpc": "2.0", "method": "fail", "params": {"kind": "rpc"}, "id": "y"}"#, from: Self.dispatcher())
        #expect(
            response
                == (try Wire.json(
                    #"{"jsonrpc": "2.0", "error": {"code": -32004, "message": "Not found: notification"}, "id": "y"}"#))
        )
    }

    @Test("a failing handler called as a notification gets no response")
    func failingNotification() async throws {
        let raw = await Wire.rawResponse(
            to: #"{"jsonrpc": "2.0", "method": "fail", "params": {"kind": "internal"}}"#, from: Self.dispatcher())
        #expect(raw == nil)
    }
}
