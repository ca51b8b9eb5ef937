/// One field of an ``AuditEvent``: either plain data (ids of clients, apps and notifications, counts, flags), or an
/// identifier of a person, which the trail never stores in clear.
///
/// A person's identifiers (`.user`, `.username`, `.device`) are written as `u:` + base64url(HMAC-SHA256(k_user, id))
/// under the key auth keeps for the user who owns them, so erasing the user (deleting `k_user`) makes every entry
/// about them unlinkable while the chain still verifies. Client addresses, and a person's identifiers whose owner has
/// no key (an unknown username, an erased user), are written as `d:` + the HMAC under the day's address key, which is
/// rotated daily.
public enum AuditValue: Sendable, Hashable {
    /// A user id: pseudonymised under its own user's key.
    case user(String)
    /// A username, owned by `owner` (the user id) when the account exists.
    case username(String, owner: String?)
    /// A device id, owned by `owner` (the user id) when known.
    case device(String, owner: String?)
    /// A client's network address: pseudonymised under the day's address key. `nil` is written as `null`.
    case address(String?)
    /// Plain text that names no person (a client id, an app id, a notification id, a reason).
    case text(String)
    /// Plain texts (notification ids, scopes).
    case texts([String])
    /// A number.
    case integer(Int64)
    /// A flag.
    case flag(Bool)

    /// The user whose key pseudonymises this value, if it is a person's identifier with a known owner.
    var owner: String? {
        switch self {
        case .user(let id): id
        case .username(_, let owner), .device(_, let owner): owner
        default: nil
        }
    }
}
