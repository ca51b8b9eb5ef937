import JSONRPC

/// Builds a dispatcher serving the methods of the specification's examples (section 7).
enum SpecDispatcher {
    static func make(recorder: CallRecorder = CallRecorder(), maxBatchLength: Int = 100) -> RPCDispatcher {
        var dispatcher = RPCDispatcher(maxBatchLength: maxBatchLength)
        dispatcher.register(Subtract.self) { params, _ in
            await recorder.record(Subtract.name, [params.minuend, params.subtrahend])
            return params.minuend - params.subtrahend
        }
        dispatcher.register(Sum.self) { params, _ in
            await recorder.record(Sum.name, params)
            return params.reduce(0, +)
        }
        dispatcher.register(NotifyHello.self) { params, _ in
            await recorder.record(NotifyHello.name, params)
            return Empty()
        }
        dispatcher.register(Update.self) { params, _ in
            await recorder.record(Update.name, params)
            return Empty()
        }
        dispatcher.register(GetData.self) { _, _ in
            await recorder.record(GetData.name, [])
            return .array(["hello", 5])
        }
        dispatcher.register(NotifySum.self) { params, _ in
            await recorder.record(NotifySum.name, params)
            return params.reduce(0, +)
        }
        return dispatcher
    }
}
