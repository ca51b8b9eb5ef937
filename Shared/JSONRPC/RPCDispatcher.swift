import Foundation
import Logging

/// Routes JSON-RPC 2.0 request bodies to typed method handlers, to the letter of the specification:
/// single calls, batches, notifications, and the standard error objects.
public struct RPCDispatcher: Sendable {
    /// A type-erased handler: decodes params, runs the method, returns an encodable result.
    typealias Handler = @Sendable (JSONValue, RPCRequestContext) async throws -> any Encodable & Sendable

    /// Most elements a batch may hold before the whole batch is refused with `-32600`.
    public var maxBatchLength: Int
    /// Told how every call ended (method, error code, duration); `nil` measures nothing.
    public var observer: (any RPCCallObserver)?
    /// Runs around every valid call (tracing); `nil` adds nothing.
    public var interceptor: (any RPCCallInterceptor)?
    private var handlers: [String: Handler] = [:]
    /// Handlers that answer without suspending, tried first (``registerImmediate(_:handler:)``).
    var immediateHandlers: [String: ImmediateHandler] = [:]

    public init(maxBatchLength: Int = 100) {
        self.maxBatchLength = maxBatchLength
    }

    /// The names of all registered methods.
    public var methodNames: Set<String> { Set(handlers.keys).union(immediateHandlers.keys) }

    /// Registers the handler for a method; params are decoded and checked before it runs.
    public mutating func register<M: RPCMethod>(
        _ method: M.Type,
        handler: @escaping @Sendable (M.Params, RPCRequestContext) async throws -> M.Result
    ) {
        let decode = Self.paramsDecoder(M.Params.self)
        handlers[M.name] = { params, context in
            let decoded = try decode(params)
            return try await handler(decoded, context)
        }
    }

    /// Handles one HTTP request body and returns the response body, or `nil` when nothing must be
    /// sent back (every call was a notification: HTTP 204). Answers without suspending when it can
    /// (``handleImmediately(body:context:)``).
    public func handle(body: Data, context: RPCRequestContext) async -> Data? {
        switch handleImmediately(body: body, context: context) {
        case .answered(let answer): answer
        case .suspend(let parsed): await handle(parsed: parsed, context: context)
        }
    }

    /// Handles a parsed request body (a call or a batch) that ``handleImmediately(body:context:)`` could not answer.
    public func handle(parsed: JSONValue, context: RPCRequestContext) async -> Data? {
        switch parsed {
        case .array(let elements):
            guard !elements.isEmpty else {
                observe(invalid: .invalidRequest("empty batch"), since: nil)
                return Self.encode(RPCResponse(id: .null, outcome: .error(.invalidRequest("empty batch"))))
            }
            guard elements.count <= maxBatchLength else {
                let error = RPCError.invalidRequest(
                    "batch of \(elements.count) calls exceeds the limit of \(maxBatchLength)")
                observe(invalid: error, since: nil)
                return Self.encode(RPCResponse(id: .null, outcome: .error(error)))
            }
            var responses: [RPCResponse] = []
            responses.reserveCapacity(elements.count)
            for element in elements {
                // The client reset the request (or went away): nobody reads the answers, so the rest is not run.
                guard !Task.isCancelled else { return nil }
                if let response = await handleCall(element, context: context) {
                    responses.append(response)
                }
            }
            return responses.isEmpty ? nil : Self.encode(responses, logger: context.logger)
        default:
            return await handleCall(parsed, context: context).map { Self.encode($0, logger: context.logger) }
        }
    }

    /// Handles one request object; `nil` for a valid notification.
    public func handleCall(_ call: JSONValue, context: RPCRequestContext) async -> RPCResponse? {
        let start = observer == nil ? nil : ContinuousClock.now
        let request: ValidRequest
        switch Self.validate(call) {
        case .failure(let failure):
            observe(invalid: failure.error, since: start)
            return RPCResponse(id: failure.id, outcome: .error(failure.error))
        case .success(let valid):
            request = valid
        }
        let handler = handlers[request.method]
        let outcome: RPCResponse.Outcome
        if let interceptor {
            let name = handler == nil ? RPCDispatcher.unknownMethod : request.method
            outcome = await interceptor.intercept(method: name) { await run(request, handler, context: context) }
        } else {
            outcome = await run(request, handler, context: context)
        }
        if let observer, let start {
            let code: Int? = if case .error(let error) = outcome { error.code } else { nil }
            observer.callEnded(
                method: handler == nil ? observer.unknownMethodName : request.method, errorCode: code,
                duration: ContinuousClock.now - start)
        }
        guard let id = request.id else { return nil }
        return RPCResponse(id: id, outcome: outcome)
    }

    /// The name calls to unregistered methods are reported under (``RPCCallObserver/unknownMethod``).
    static let unknownMethod = "unknown"

    /// Runs a valid request's handler and turns what it threw into the error sent back.
    private func run(_ request: ValidRequest, _ handler: Handler?, context: RPCRequestContext) async
        -> RPCResponse.Outcome
    {
        guard let handler else { return .error(.methodNotFound(request.method)) }
        do {
            return .result(try await handler(request.params, context))
        } catch {
            return Self.outcome(of: error, method: request.method, logger: context.logger)
        }
    }

    /// What a handler's error is sent back as: its own JSON-RPC error, or `-32603` (the reason goes to the log only).
    ///
    /// A handler that ends with `CancellationError` because its call was cancelled (the client went away, so nobody
    /// reads the answer) is logged at debug: it is not a server failure, and a send benchmark's disconnects would
    /// otherwise fill the error log. A `CancellationError` with no cancellation behind it is still an error.
    static func outcome(of error: any Error, method: String, logger: @autoclosure () -> Logger) -> RPCResponse.Outcome {
        if let error = error as? any RPCErrorConvertible { return .error(error.rpcError) }
        if error is CancellationError, Task.isCancelled {
            logger().debug("rpc.handler.cancelled", metadata: ["rpc.method": "\(method)"])
            return .error(.internalError)
        }
        logger().error(
            "rpc.handler.failed", metadata: ["rpc.method": "\(method)", "error": "\(String(reflecting: error))"])
        return .error(.internalError)
    }

    /// Tells the observer about a call that was not valid JSON-RPC.
    func observe(invalid error: RPCError, since start: ContinuousClock.Instant?) {
        guard let observer else { return }
        let duration = start.map { ContinuousClock.now - $0 } ?? .zero
        observer.callEnded(method: observer.invalidRequestName, errorCode: error.code, duration: duration)
    }

    // MARK: - Validation

    struct ValidRequest {
        var method: String
        var params: JSONValue
        var id: JSONValue?
    }

    struct InvalidRequest: Error {
        var id: JSONValue
        var error: RPCError
    }

    static func validate(_ call: JSONValue) -> Result<ValidRequest, InvalidRequest> {
        guard case .object(let members) = call else {
            return .failure(
                InvalidRequest(id: .null, error: .invalidRequest("expected a request object, got \(call.typeName)")))
        }
        // The id is echoed only when it is a legal id; otherwise the error carries null.
        var id: JSONValue? = nil
        if let rawID = members["id"] {
            switch rawID {
            case .string, .int, .double, .null: id = rawID
            default:
                return .failure(
                    InvalidRequest(id: .null, error: .invalidRequest("'id' must be a string, number or null")))
            }
        }
        let errorID = id ?? .null
        guard members["jsonrpc"] == .string("2.0") else {
            return .failure(InvalidRequest(id: errorID, error: .invalidRequest("'jsonrpc' must be exactly \"2.0\"")))
        }
        guard case .string(let method) = members["method"] else {
            return .failure(InvalidRequest(id: errorID, error: .invalidRequest("'method' must be a string")))
        }
        let params = members["params"] ?? .object([:])
        switch params {
        case .object, .array: break
        default:
            return .failure(
                InvalidRequest(id: errorID, error: .invalidRequest("'params' must be an object or an array")))
        }
        return .success(ValidRequest(method: method, params: params, id: id))
    }

    // MARK: - Params

    static func decodeParams<P: Decodable>(_ type: P.Type, from params: JSONValue) throws -> P {
        do {
            return try RPCCodec.makeDecoder().decode(P.self, from: Data(params.jsonBytes))
        } catch let error as DecodingError {
            throw Self.invalidParams(from: error)
        }
    }

    /// Turns a decoding failure into a `-32602` whose message names the field.
    static func invalidParams(from error: DecodingError) -> RPCError {
        func path(_ codingPath: [any CodingKey], _ last: (any CodingKey)? = nil) -> String {
            let keys = codingPath + (last.map { [$0] } ?? [])
            var result = ""
            for key in keys {
                if let index = key.intValue {
                    result += "[\(index)]"
                } else {
                    result += result.isEmpty ? key.stringValue : ".\(key.stringValue)"
                }
            }
            return result
        }
        switch error {
        case .keyNotFound(let key, let context):
            return .invalidParams(field: path(context.codingPath, key), "is required")
        case .valueNotFound(let type, let context):
            let field = path(context.codingPath)
            // Foundation reports a missing positional param as a null one; only its description tells them apart.
            if !field.isEmpty, context.debugDescription.hasPrefix("Unkeyed container is at end") {
                return .invalidParams(field: field, "is required")
            }
            return field.isEmpty
                ? .invalidParams("params must not be null")
                : .invalidParams(field: field, "must not be null (expected \(describe(type)))")
        case .typeMismatch(let type, let context):
            let field = path(context.codingPath)
            return field.isEmpty
                ? .invalidParams("expected params as \(describe(type))")
                : .invalidParams(field: field, "must be \(describe(type))")
        case .dataCorrupted(let context):
            let field = path(context.codingPath)
            return field.isEmpty
                ? .invalidParams(context.debugDescription)
                : .invalidParams(field: field, "is invalid: \(context.debugDescription)")
        @unknown default:
            return .invalidParams("could not be decoded")
        }
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "a boolean"
        case is Int.Type, is Int64.Type, is Int32.Type, is UInt.Type, is Double.Type: "a number"
        case is Date.Type: "an ISO 8601 date string"
        default:
            String(describing: type).hasPrefix("Array") ? "an array" : "an object"
        }
    }

    // MARK: - Encoding

    static func encode(_ value: some Encodable) -> Data {
        do {
            return try RPCCodec.makeEncoder().encode(value)
        } catch {
            // A result that cannot be encoded is a server bug; never leak it.
            let fallback = RPCResponse(id: .null, outcome: .error(.internalError))
            return (try? RPCCodec.makeEncoder().encode(fallback)) ?? Data()
        }
    }

    /// Encodes one response. A result that cannot be encoded (a server bug, e.g. a NaN) is answered
    /// as `-32603` with the request's id; the reason goes to the log only.
    static func encode(_ response: RPCResponse, logger: @autoclosure () -> Logger) -> Data {
        if let direct = response.directlyEncoded() { return direct }
        do {
            return try RPCCodec.makeEncoder().encode(response)
        } catch {
            logger().error("rpc.result.unencodable", metadata: ["error": "\(String(reflecting: error))"])
            return encode(RPCResponse(id: response.id, outcome: .error(.internalError)))
        }
    }

    /// Encodes the responses of a batch; a result that cannot be encoded spoils only its own response.
    static func encode(_ responses: [RPCResponse], logger: @autoclosure () -> Logger) -> Data {
        if let data = try? RPCCodec.makeEncoder().encode(responses) { return data }
        let encoded = responses.map { encode($0, logger: logger()) }
        return Data("[".utf8) + Data(encoded.joined(separator: Data(",".utf8))) + Data("]".utf8)
    }
}
