import Foundation

/// What ``RPCDispatcher/handleImmediately(body:context:)`` made of a request body.
public enum RPCImmediateAnswer: Sendable {
    /// The response body, ready now (`nil`: the call was a notification, HTTP 204).
    case answered(Data?)
    /// The body needs a handler that suspends: pass it to ``RPCDispatcher/handle(parsed:context:)``.
    case suspend(JSONValue)
}

extension RPCDispatcher {
    /// A type-erased immediate handler: decodes params, then answers now or returns `nil` (suspend instead).
    typealias ImmediateHandler = @Sendable (JSONValue, RPCRequestContext) throws -> ImmediateResult?

    /// What an immediate handler answered: a result written straight into the response (its method's result type
    /// is ``RPCDirectEncodable``, found out once when it was registered) or one the encoder writes.
    enum ImmediateResult: Sendable {
        case direct(any RPCDirectEncodable)
        case encodable(any Encodable & Sendable)

        /// The result, as ``RPCResponse/Outcome/result(_:)`` holds it.
        var value: any Encodable & Sendable {
            switch self {
            case .direct(let value): value
            case .encodable(let value): value
            }
        }
    }

    /// Registers an answer that needs no suspension for a method whose async handler is registered with
    /// ``register(_:handler:)``: `handler` returns exactly what that handler would (or throws what it would throw), or
    /// `nil` when it cannot tell without suspending (e.g. a token not verified before), and the call then goes to
    /// the async handler. A server calls it on the event loop, so it must not wait on anything slow.
    public mutating func registerImmediate<M: RPCMethod>(
        _ method: M.Type,
        handler: @escaping @Sendable (M.Params, RPCRequestContext) throws -> M.Result?
    ) {
        let decode = Self.paramsDecoder(M.Params.self)
        if let direct = M.Result.self as? any RPCDirectEncodable.Type {
            immediateHandlers[M.name] = Self.immediateHandler(writing: direct, decode: decode, handler: handler)
        } else {
            immediateHandlers[M.name] = { params, context in
                try handler(decode(params), context).map { .encodable($0) }
            }
        }
    }

    /// An immediate handler whose results are written straight into the response: `Direct` is `Value`, checked here
    /// once, so that no call casts its result (a conformance look-up and a second existential box per call).
    private static func immediateHandler<Params, Value, Direct: RPCDirectEncodable>(
        writing _: Direct.Type, decode: @escaping @Sendable (JSONValue) throws -> Params,
        handler: @escaping @Sendable (Params, RPCRequestContext) throws -> Value?
    ) -> ImmediateHandler {
        precondition(Value.self == Direct.self, "\(Value.self) is not \(Direct.self)")
        return { params, context in
            guard let result = try handler(decode(params), context) else { return nil }
            return .direct(unsafeBitCast(result, to: Direct.self))
        }
    }

    /// Answers a request body without suspending when it can: a body that is not JSON, an invalid request object, or
    /// a single call whose method has an immediate handler that answers. Everything else (batches, other methods,
    /// every call while an ``interceptor`` traces calls) comes back parsed, for ``handle(parsed:context:)``.
    public func handleImmediately(body: Data, context: RPCRequestContext) -> RPCImmediateAnswer {
        let parsed: JSONValue
        do {
            parsed = try JSONValueParser.parse(body)
        } catch {
            observe(invalid: .parseError, since: nil)
            return .answered(Self.encode(RPCResponse(id: .null, outcome: .error(.parseError))))
        }
        // A span per call is started by the async interceptor; batches run their calls in order on the async path.
        guard interceptor == nil, case .object = parsed else { return .suspend(parsed) }
        let start = observer == nil ? nil : ContinuousClock.now
        let request: ValidRequest
        switch Self.validate(parsed) {
        case .failure(let failure):
            observe(invalid: failure.error, since: start)
            return .answered(
                Self.encode(RPCResponse(id: failure.id, outcome: .error(failure.error)), logger: context.logger))
        case .success(let valid):
            request = valid
        }
        guard let handler = immediateHandlers[request.method] else { return .suspend(parsed) }
        let outcome: RPCResponse.Outcome
        var direct: (any RPCDirectEncodable)?
        do {
            guard let result = try handler(request.params, context) else { return .suspend(parsed) }
            if case .direct(let value) = result { direct = value }
            outcome = .result(result.value)
        } catch {
            outcome = Self.outcome(of: error, method: request.method, logger: context.logger)
        }
        if let observer, let start {
            let code: Int? = if case .error(let error) = outcome { error.code } else { nil }
            observer.callEnded(method: request.method, errorCode: code, duration: ContinuousClock.now - start)
        }
        guard let id = request.id else { return .answered(nil) }
        if let direct, let data = RPCResponse.directlyEncoded(id: id, result: direct) { return .answered(data) }
        return .answered(Self.encode(RPCResponse(id: id, outcome: outcome), logger: context.logger))
    }
}
