import Foundation

/// A request object as a client sends it.
public struct RPCRequestEnvelope<Params: Encodable & Sendable>: Encodable, Sendable {
    public let jsonrpc = "2.0"
    public var method: String
    public var params: Params
    /// `nil` makes this a notification: the member is left out and no response comes back.
    public var id: JSONValue?

    public init(method: String, params: Params, id: JSONValue?) {
        self.method = method
        self.params = params
        self.id = id
    }

    private enum CodingKeys: String, CodingKey { case jsonrpc, method, params, id }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(jsonrpc, forKey: .jsonrpc)
        try container.encode(method, forKey: .method)
        try container.encode(params, forKey: .params)
        try container.encodeIfPresent(id, forKey: .id)
    }
}

/// A response object as a client reads it: exactly one of `result` and `error` is set.
public struct RPCResponseEnvelope<Result: Decodable & Sendable>: Decodable, Sendable {
    public var id: JSONValue
    public var result: Result?
    public var error: RPCError?

    private enum CodingKeys: String, CodingKey { case jsonrpc, id, result, error }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let version = try container.decode(String.self, forKey: .jsonrpc)
        guard version == "2.0" else {
            throw DecodingError.dataCorruptedError(
                forKey: .jsonrpc, in: container, debugDescription: "jsonrpc must be \"2.0\"")
        }
        id = try container.decodeIfPresent(JSONValue.self, forKey: .id) ?? .null
        error = try container.decodeIfPresent(RPCError.self, forKey: .error)
        result = error == nil ? try container.decode(Result.self, forKey: .result) : nil
    }
}

/// A response object as a server writes it.
public struct RPCResponse: Encodable, Sendable {
    /// The id of the request, echoed exactly; `null` when it could not be read.
    public var id: JSONValue
    /// The result or the error.
    public var outcome: Outcome

    /// What the call produced.
    public enum Outcome: Sendable {
        case result(any Encodable & Sendable)
        case error(RPCError)
    }

    public init(id: JSONValue, outcome: Outcome) {
        self.id = id
        self.outcome = outcome
    }

    private enum CodingKeys: String, CodingKey { case jsonrpc, id, result, error }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode("2.0", forKey: .jsonrpc)
        try container.encode(id, forKey: .id)
        switch outcome {
        case .result(let value): try container.encode(value, forKey: .result)
        case .error(let error): try container.encode(error, forKey: .error)
        }
    }

    /// The error, when the outcome is one.
    public var error: RPCError? {
        if case .error(let error) = outcome { return error }
        return nil
    }
}
