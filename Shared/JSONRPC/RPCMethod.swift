/// A JSON-RPC method as a type: its wire name, its params and its result, defined once for both sides.
public protocol RPCMethod: Sendable {
    /// The params object the method takes; `{}` (``Empty``) unless the method declares its own.
    associatedtype Params: Codable & Sendable = Empty
    /// The result the method returns.
    associatedtype Result: Codable & Sendable
    /// The method name on the wire, e.g. `auth.login`.
    static var name: String { get }
}

/// Params or result with no members, encoded as `{}`.
public struct Empty: Codable, Sendable, Hashable {
    public init() {}
}
