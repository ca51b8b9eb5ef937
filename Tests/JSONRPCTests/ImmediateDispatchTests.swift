import Foundation
import JSONRPC
import Synchronization
import TestSupport
import Testing

/// Counts how often a dispatcher's async handler ran (the immediate path must not reach it).
private final class AsyncRuns: Sendable {
    private let count = Atomic<Int>(0)
    func record() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}

/// An interceptor that only passes calls through (as tracing would, minus the span).
private struct PassThrough: RPCCallInterceptor {
    func intercept(method: String, _ call: () async -> RPCResponse.Outcome) async -> RPCResponse.Outcome {
        await call()
    }
}

/// Hears every call that ended.
private final class EndedCalls: RPCCallObserver {
    private let calls = Mutex<[(String, Int?)]>([])
    func callEnded(method: String, errorCode: Int?, duration: Duration) {
        calls.withLock { $0.append((method, errorCode)) }
    }
    var all: [(method: String, code: Int?)] { calls.withLock { $0.map { ($0.0, $0.1) } } }
}

@Suite("calls answered without suspending")
struct ImmediateDispatchTests {
    /// `sum` answers immediately unless a param is 0 (then only its async handler knows); `fail` throws immediately.
    private static func dispatcher(_ runs: AsyncRuns) -> RPCDispatcher {
        var dispatcher = RPCDispatcher()
        dispatcher.register(Sum.self) { params, _ in
            runs.record()
            return params.reduce(0, +) + 1000
        }
        dispatcher.registerImmediate(Sum.self) { params, _ in
            params.contains(0) ? nil : params.reduce(0, +)
        }
        dispatcher.register(Fail.self) { _, _ in
            runs.record()
            return 0
        }
        dispatcher.registerImmediate(Fail.self) { params, _ in
            switch params.kind {
            case "internal": throw DatabaseFailure()
            case "domain": throw LedgerError.overdrawn(balance: -5)
            default: return 1
            }
        }
        dispatcher.register(Subtract.self) { params, _ in
            runs.record()
            return params.minuend - params.subtrahend
        }
        return dispatcher
    }

    private static func answer(_ outcome: RPCImmediateAnswer) throws -> JSONValue? {
        guard case .answered(let data) = outcome else {
            Issue.record("expected an immediate answer, got \(outcome)")
            return nil
        }
        return try data.map { try JSONDecoder().decode(JSONValue.self, from: $0) }
    }

    private static func suspends(_ outcome: RPCImmediateAnswer) -> Bool {
        if case .suspend = outcome { return true }
        return false
    }

    @Test("a call whose immediate handler answers gets its response at once, and the async handler never runs")
    func answeredImmediately() async throws {
        let runs = AsyncRuns()
        let dispatcher = Self.dispatcher(runs)
        let outcome = dispatcher.handleImmediately(
            body: Data(#"{"jsonrpc":"2.0","method":"sum","params":[1,2,4],"id":9}"#.utf8), context: Wire.context())
        #expect(try Self.answer(outcome) == (try Wire.json(#"{"jsonrpc":"2.0","result":7,"id":9}"#)))
        // The async entry point takes the same path.
        let viaHandle = try await Wire.response(
            to: #"{"jsonrpc":"2.0","method":"sum","params":[3],"id":1}"#, from: dispatcher)
        #expect(viaHandle == (try Wire.json(#"{"jsonrpc":"2.0","result":3,"id":1}"#)))
        #expect(runs.value == 0)
    }

    @Test("an immediate handler that cannot tell hands the call to the async handler")
    func declinedGoesAsync() async throws {
        let runs = AsyncRuns()
        let dispatcher = Self.dispatcher(runs)
        let body = #"{"jsonrpc":"2.0","method":"sum","params":[0,5],"id":2}"#
        #expect(Self.suspends(dispatcher.handleImmediately(body: Data(body.utf8), context: Wire.context())))
        #expect(
            try await Wire.response(to: body, from: dispatcher)
                == (try Wire.json(#"{"jsonrpc":"2.0","result":1005,"id":2}"#)))
        #expect(runs.value == 1)
    }

    @Test("batches, methods without an immediate handler and traced calls take the async path")
    func whatSuspends() async throws {
        let runs = AsyncRuns()
        var dispatcher = Self.dispatcher(runs)
        let context = Wire.context()
        let batch = #"[{"jsonrpc":"2.0","method":"sum","params":[1],"id":1}]"#
        #expect(Self.suspends(dispatcher.handleImmediately(body: Data(batch.utf8), context: context)))
        let other = #"{"jsonrpc":"2.0","method":"subtract","params":{"minuend":5,"subtrahend":3},"id":1}"#
        #expect(Self.suspends(dispatcher.handleImmediately(body: Data(other.utf8), context: context)))
        let unknown = #"{"jsonrpc":"2.0","method":"nope","id":1}"#
        #expect(Self.suspends(dispatcher.handleImmediately(body: Data(unknown.utf8), context: context)))
        dispatcher.interceptor = PassThrough()
        let single = #"{"jsonrpc":"2.0","method":"sum","params":[1],"id":1}"#
        #expect(Self.suspends(dispatcher.handleImmediately(body: Data(single.utf8), context: context)))
        // Whatever the path, the answers are the async handlers' own.
        #expect(
            try await Wire.response(to: single, from: dispatcher)
                == (try Wire.json(#"{"jsonrpc":"2.0","result":1001,"id":1}"#)))
        #expect(runs.value == 1)
    }

    @Test("malformed bodies, invalid requests and bad params are answered at once with the usual errors")
    func invalidAnsweredImmediately() throws {
        let dispatcher = Self.dispatcher(AsyncRuns())
        let context = Wire.context()
        let parse = try Self.answer(dispatcher.handleImmediately(body: Data("{not json".utf8), context: context))
        #expect(
            parse == (try Wire.json(#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}"#)))
        let invalid = try Self.answer(
            dispatcher.handleImmediately(body: Data(#"{"jsonrpc":"1.0","method":"sum","id":4}"#.utf8), context: context)
        )
        #expect(invalid?.errorCode == -32600)
        let params = try Self.answer(
            dispatcher.handleImmediately(
                body: Data(#"{"jsonrpc":"2.0","method":"sum","params":{"a":1},"id":5}"#.utf8), context: context))
        #expect(params?.errorCode == -32602)
    }

    @Test("an immediate handler's errors are sent as on the async path: domain errors as themselves, others as -32603")
    func immediateErrors() throws {
        let dispatcher = Self.dispatcher(AsyncRuns())
        let logs = RecordedLog()
        let context = Wire.context(logger: logs.logger())
        let domain = try Self.answer(
            dispatcher.handleImmediately(
                body: Data(#"{"jsonrpc":"2.0","method":"fail","params":{"kind":"domain"},"id":"x"}"#.utf8),
                context: context))
        #expect(
            domain
                == (try Wire.json(
                    #"{"jsonrpc":"2.0","error":{"code":-32042,"message":"Account overdrawn","data":{"balance":-5}},"id":"x"}"#
                )))
        let data = dispatcher.handleImmediately(
            body: Data(#"{"jsonrpc":"2.0","method":"fail","params":{"kind":"internal"},"id":3}"#.utf8),
            context: context)
        guard case .answered(let raw?) = data else {
            Issue.record("expected an answer, got \(data)")
            return
        }
        let text = String(decoding: raw, as: UTF8.self)
        #expect(text.contains("-32603"))
        #expect(!text.contains("SQLITE"))
        #expect(logs.all.contains { $0.message == "rpc.handler.failed" })
        // A notification answered immediately gets no body (HTTP 204).
        let notification = dispatcher.handleImmediately(
            body: Data(#"{"jsonrpc":"2.0","method":"sum","params":[1]}"#.utf8), context: context)
        guard case .answered(nil) = notification else {
            Issue.record("expected an empty answer, got \(notification)")
            return
        }
    }

    @Test("the observer hears every call answered immediately, with its method and code")
    func observed() throws {
        var dispatcher = Self.dispatcher(AsyncRuns())
        let calls = EndedCalls()
        dispatcher.observer = calls
        let context = Wire.context()
        _ = dispatcher.handleImmediately(
            body: Data(#"{"jsonrpc":"2.0","method":"sum","params":[1],"id":1}"#.utf8), context: context)
        _ = dispatcher.handleImmediately(
            body: Data(#"{"jsonrpc":"2.0","method":"fail","params":{"kind":"domain"},"id":2}"#.utf8), context: context)
        _ = dispatcher.handleImmediately(body: Data("[".utf8), context: context)
        let seen = calls.all
        #expect(seen.map(\.method) == ["sum", "fail", "invalid"])
        #expect(seen.map(\.code) == [nil, -32042, -32700])
        #expect(dispatcher.methodNames == ["sum", "fail", "subtract"])
    }
}

extension JSONValue {
    /// The `error.code` of a response object.
    fileprivate var errorCode: Int64? {
        guard case .object(let members) = self, case .object(let error)? = members["error"],
            case .int(let code)? = error["code"]
        else { return nil }
        return code
    }
}
