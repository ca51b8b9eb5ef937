import Foundation
import ServiceCore
import SharedModels

extension AuthenticationService {
    /// `users.delete` for `caller`: a user erasing themselves (their `auth_time` at most `erasureSignInMaxAge` old) or
    /// an operator's client with `users:delete` naming exactly one of `userId` and `username`.
    public func deleteUser(_ params: Users.Delete.Params, by caller: Principal) async throws -> Users.Delete.Result {
        guard let erasure else { throw RPCError.unavailable("erasure", "auth cannot reach the other services here") }
        let userID: String
        if caller.isUser {
            guard params.username == nil else {
                throw AuthError.invalidField("username", "is for operators; a user erases their own account")
            }
            guard params.userId == nil || params.userId == caller.subject else {
                throw RPCError.forbidden(scope: Scope.usersDelete)
            }
            guard let authTime = caller.authTime, now().timeIntervalSince(authTime) <= erasureSignInMaxAge else {
                throw RPCError(
                    code: RPCErrorCode.forbidden,
                    message:
                        "Forbidden: sign in with your password again to delete your account (a sign-in within the "
                        + "last \(Int(erasureSignInMaxAge)) seconds is required)",
                    data: .object(["reason": "signInRequired"]))
            }
            userID = caller.subject
        } else {
            switch (params.userId, params.username) {
            case (let id?, nil):
                guard (1...Self.maxLookupLength).contains(id.count) else {
                    throw AuthError.invalidField("userId", "must be 1–\(Self.maxLookupLength) characters")
                }
                userID = id
            case (nil, let name?):
                guard (1...Self.maxLookupLength).contains(name.count),
                    let user = try await repository.user(named: name)
                else { throw RPCError.notFound("user") }
                userID = user.id
            default:
                throw AuthError.invalidField("userId", "pass exactly one of 'userId' and 'username'")
            }
        }
        return try await erasure.erase(userID: userID, requestedBy: caller.isUser ? "self" : caller.subject)
    }
}
