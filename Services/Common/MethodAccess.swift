import SharedModels

/// What a JSON-RPC method requires of its caller, declared where the method is registered (``MethodRegistry``):
/// a verified bearer token carrying at least one of ``scopes``.
public struct MethodAccess: Sendable, Hashable {
    /// Scopes of which the caller's token must carry at least one; the first is the one a refusal names.
    public let scopes: [String]

    /// A token carrying at least one of `scopes` (the first is named when the caller has none of them).
    public init(anyOf scopes: [String]) {
        precondition(!scopes.isEmpty, "a method's access names at least one scope")
        self.scopes = scopes
    }

    /// A token carrying `scope`.
    public static func scope(_ scope: String) -> MethodAccess { MethodAccess(anyOf: [scope]) }

    /// A person's (device's) token: scope `user`.
    public static let user = MethodAccess.scope(Scope.user)

    /// Throws `-32003` naming the first required scope unless `principal` carries one of them.
    public func check(_ principal: Principal) throws(RPCError) {
        guard scopes.contains(where: principal.scopes.contains) else {
            throw RPCError.forbidden(scope: scopes[0])
        }
    }
}
