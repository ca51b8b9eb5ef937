import ServiceCore
import SharedModels

extension AuthenticationService {
    /// Longest user id or username `auth.lookupUser` accepts (anything longer cannot exist).
    static let maxLookupLength = 255

    /// The user with this id or username, for backends and push-dispatch (`auth.lookupUser`).
    ///
    /// ``AuthMethods`` admits callers carrying `users:read` (push-dispatch) or `push:send` (an app backend). Throws
    /// `-32602` unless exactly one of `userId` and `username` is given, `-32004` when auth knows no such user.
    public func lookupUser(_ params: Auth.LookupUser.Params) async throws -> Auth.LookupUser.Result {
        let user: UserRecord?
        switch (params.userId, params.username) {
        case (let id?, nil):
            guard (1...Self.maxLookupLength).contains(id.count) else {
                throw AuthError.invalidField("userId", "must be 1–\(Self.maxLookupLength) characters")
            }
            user = try await repository.user(id: id)
        case (nil, let name?):
            guard (1...Self.maxLookupLength).contains(name.count) else {
                throw AuthError.invalidField("username", "must be 1–\(Self.maxLookupLength) characters")
            }
            user = try await repository.user(named: name)
        default:
            throw RPCError.invalidParams("pass exactly one of 'userId' and 'username'")
        }
        guard let user else { throw RPCError.notFound("user") }
        return Auth.LookupUser.Result(userId: user.id, username: user.username)
    }

    /// Which of `params.userIds` auth knows (`auth.lookupUsers`), admitted as ``lookupUser(_:)`` is. Throws `-32602`
    /// naming `userIds` for none or more than ``Auth/LookupUsers/maxUserIDs``; an id longer than any user id can be
    /// is simply unknown.
    public func lookupUsers(_ params: Auth.LookupUsers.Params) async throws -> Auth.LookupUsers.Result {
        var seen = Set<String>()
        let ids = params.userIds.filter { seen.insert($0).inserted }
        guard (1...Auth.LookupUsers.maxUserIDs).contains(ids.count) else {
            throw AuthError.invalidField("userIds", "must name 1–\(Auth.LookupUsers.maxUserIDs) user ids")
        }
        let askable = ids.filter { (1...Self.maxLookupLength).contains($0.count) }
        let found = Dictionary(
            try await repository.users(ids: askable).map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var users: [Auth.LookupUser.Result] = []
        var unknown: [String] = []
        for id in ids {
            if let user = found[id] {
                users.append(Auth.LookupUser.Result(userId: user.id, username: user.username))
            } else {
                unknown.append(id)
            }
        }
        return Auth.LookupUsers.Result(users: users, unknownUserIds: unknown)
    }
}
