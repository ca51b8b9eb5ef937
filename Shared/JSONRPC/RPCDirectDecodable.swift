/// Params read straight from the parsed request (``JSONValue``) instead of a `JSONDecoder` round trip (serialize the
/// tree, parse it again, box every container), for the hot methods. A conformance must accept and refuse exactly
/// what the `Decodable` conformance does, with the same `-32602` messages; a contract test holds each one to that.
public protocol RPCDirectDecodable: Decodable, Sendable {
    /// Reads the params; throws the ``RPCError`` the `Decodable` path would send back.
    init(params: RPCParamsReader) throws(RPCError)
}

/// The members of a call's params, read with the `-32602` messages ``RPCDispatcher``'s `Decodable` path gives.
public struct RPCParamsReader: Sendable {
    private let members: [String: JSONValue]

    /// - Throws: `-32602` "expected params as an object" for positional (array) params.
    public init(_ params: JSONValue) throws(RPCError) {
        guard case .object(let members) = params else { throw .invalidParams("expected params as an object") }
        self.members = members
    }

    /// A member that must be a string.
    public func string(_ key: String) throws(RPCError) -> String {
        switch members[key] {
        case .string(let text): return text
        case nil: throw .invalidParams(field: key, "is required")
        case .null: throw .invalidParams(field: key, "must not be null (expected a string)")
        default: throw .invalidParams(field: key, "must be a string")
        }
    }

    /// A member that may be absent or null (`nil`), else must be a string.
    public func optionalString(_ key: String) throws(RPCError) -> String? {
        switch members[key] {
        case .string(let text): return text
        case nil, .null: return nil
        default: throw .invalidParams(field: key, "must be a string")
        }
    }
}

extension RPCDispatcher {
    /// How a method's params are decoded, chosen once when it is registered: ``RPCDirectDecodable`` reads them from
    /// the parsed tree, anything else goes through `JSONDecoder` (``decodeParams(_:from:)``).
    static func paramsDecoder<P: Decodable & Sendable>(_ type: P.Type) -> @Sendable (JSONValue) throws -> P {
        if let direct = type as? any RPCDirectDecodable.Type { return directParamsDecoder(direct, as: P.self) }
        return { params in try decodeParams(P.self, from: params) }
    }

    /// Reads `Direct`, which is `P` (checked here once), so that no call boxes the params in an existential and casts
    /// them back.
    private static func directParamsDecoder<Direct: RPCDirectDecodable, P>(
        _: Direct.Type, as _: P.Type
    ) -> @Sendable (JSONValue) throws -> P {
        precondition(Direct.self == P.self, "\(Direct.self) is not \(P.self)")
        return { params in unsafeBitCast(try Direct(params: RPCParamsReader(params)), to: P.self) }
    }
}
