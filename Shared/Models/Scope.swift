/// The scopes an access token can carry.
public enum Scope {
    /// Carried by every user (device) token; clients can never be given it.
    public static let user = "user"
    /// Lets an app backend call `push.send` and `push.status`.
    public static let pushSend = "push:send"
    /// Lets push-dispatch call `store.put`.
    public static let storeWrite = "store:write"
    /// Lets push-dispatch call `auth.revokedSessions` (to end event streams of signed-out sessions).
    public static let sessionsRead = "sessions:read"
    /// Lets push-dispatch call `auth.lookupUser` (to refuse sends to users auth does not know); `push:send` includes it.
    public static let usersRead = "users:read"
    /// Lets an operator's automation manage apps (`apps.*`); no client has it unless created with it.
    public static let appsAdmin = "apps:admin"
    /// Lets an app backend manage its own webhook endpoints (`webhooks.*`); no client has it unless created with it.
    public static let webhooksManage = "webhooks:manage"
    /// Lets a service fetch the per-user keys its audit trail pseudonymises people's identifiers with
    /// (`auth.auditKeys`): auth provisions it for push-dispatch's and the store's own clients only.
    public static let auditKeys = "audit:keys"
    /// Lets an operator's automation erase any user (`users.delete {userId}`); no client has it unless created with it.
    public static let usersDelete = "users:delete"
    /// Carried only by the tokens auth signs for itself to erase a user in the store and push-dispatch
    /// (`store.eraseUser`, `devices.eraseUser`); auth never gives it to a client.
    public static let usersErase = "users:erase"
}
