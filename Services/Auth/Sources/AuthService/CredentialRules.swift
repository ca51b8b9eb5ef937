import SharedModels

/// The shape rules for usernames, passwords, client ids, client secrets, scopes and apps.
///
/// Each check throws `AuthError.invalidField` naming the field, so callers get a precise `-32602`.
public enum CredentialRules {
    /// Usernames are 3–64 bytes of `[a-z0-9._-]` (`TextLimit.username`; the character set keeps out control and
    /// bidirectional-override characters).
    public static let usernameLength = TextLimit.username.bytes
    /// Passwords are 8–72 bytes of UTF-8 (bcrypt ignores everything after byte 72).
    public static let passwordBytes = 8...72
    /// Client ids are 3–64 bytes of `[A-Za-z0-9._-]` (`TextLimit.clientID`).
    public static let clientIDLength = TextLimit.clientID.bytes
    /// Client secrets may be at most 72 bytes of UTF-8 (the bcrypt limit).
    public static let maximumSecretBytes = 72
    /// Each scope is at most this many characters of `[a-z0-9:._-]`.
    public static let maximumScopeLength = 64
    /// A client may be bound to at most this many apps (each a well-formed ``AppID``).
    public static let maximumClientApps = 64

    /// Checks a username for `auth.register`.
    public static func validateUsername(_ username: String, field: String = "username") throws(AuthError) {
        guard username.utf8.allSatisfy(isUsernameByte) else {
            throw .invalidField(field, "may only contain lowercase letters a-z, digits 0-9, '.', '_' and '-'")
        }
        guard usernameLength.contains(username.utf8.count) else {
            throw .invalidField(field, "must be 3–64 characters long (got \(username.utf8.count))")
        }
    }

    /// Checks a new password: 8–72 bytes of UTF-8, no NUL (bcrypt would stop reading there).
    public static func validatePassword(_ password: String, field: String = "password") throws(AuthError) {
        let bytes = password.utf8.count
        guard passwordBytes.contains(bytes) else {
            throw .invalidField(field, "must be 8–72 bytes of UTF-8 (got \(bytes) bytes)")
        }
        guard !password.utf8.contains(0) else {
            throw .invalidField(field, "must not contain NUL characters")
        }
    }

    /// Whether bcrypt would check every byte of `password`; other inputs can never match a stored hash.
    static func isVerifiable(_ password: String) -> Bool {
        password.utf8.count <= maximumSecretBytes && !password.utf8.contains(0)
    }

    /// Checks a client id.
    public static func validateClientID(_ clientID: String, field: String = "clientId") throws(AuthError) {
        guard clientID.utf8.allSatisfy({ isUsernameByte($0) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) })
        else {
            throw .invalidField(field, "may only contain letters, digits, '.', '_' and '-'")
        }
        guard clientIDLength.contains(clientID.utf8.count) else {
            throw .invalidField(field, "must be 3–64 characters long (got \(clientID.utf8.count))")
        }
    }

    /// Checks a chosen client secret: `minimumLength`–72 bytes, no NUL.
    public static func validateClientSecret(_ secret: String, minimumLength: Int, field: String = "secret")
        throws(AuthError)
    {
        let bytes = secret.utf8.count
        guard bytes >= minimumLength, bytes <= maximumSecretBytes else {
            throw .invalidField(
                field, "must be \(minimumLength)–\(maximumSecretBytes) bytes of UTF-8 (got \(bytes) bytes)")
        }
        guard !secret.utf8.contains(0) else {
            throw .invalidField(field, "must not contain NUL characters")
        }
    }

    /// Checks and normalises client scopes: at least one, each `[a-z0-9:._-]+`, never `user`; sorted, without duplicates.
    public static func normalizeClientScopes(_ scopes: [String], field: String = "scopes") throws(AuthError) -> [String]
    {
        guard !scopes.isEmpty else { throw .invalidField(field, "must contain at least one scope") }
        for scope in scopes {
            guard !scope.isEmpty, scope.utf8.count <= maximumScopeLength,
                scope.utf8.allSatisfy({ isUsernameByte($0) || $0 == UInt8(ascii: ":") })
            else {
                throw .invalidField(
                    field, "each scope must be 1–\(maximumScopeLength) characters of [a-z0-9:._-] (got '\(scope)')")
            }
            guard scope != Scope.user else {
                throw .invalidField(field, "must not contain 'user': that scope is only for people's tokens")
            }
        }
        return Array(Set(scopes)).sorted()
    }

    /// Checks and normalises the apps a client may act for: each a well-formed ``AppID``, at most
    /// ``maximumClientApps`` of them; sorted, without duplicates. None is allowed: the deployment's default app.
    public static func normalizeClientApps(_ apps: [String], field: String = "apps") throws(AuthError) -> [String] {
        for app in apps where !AppID.isValid(app) {
            throw .invalidField(field, "each app id \(AppID.requirement) (got '\(app.prefix(80))')")
        }
        let normalized = Array(Set(apps)).sorted()
        guard normalized.count <= maximumClientApps else {
            throw .invalidField(field, "must name at most \(maximumClientApps) apps (got \(normalized.count))")
        }
        return normalized
    }

    private static func isUsernameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
            true
        default:
            false
        }
    }
}
