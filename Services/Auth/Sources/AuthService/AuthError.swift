import SharedModels

/// Why an auth operation failed; mapped onto the stable JSON-RPC codes in one place (`rpcError`).
///
/// Credential failures deliberately carry no detail: a wrong username and a wrong password look the same.
public struct AuthError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Code: Hashable, Sendable {
        case invalidField(field: String, reason: String)
        case usernameTaken
        case clientExists(String)
        case invalidCredentials
        case invalidClientCredentials
        case invalidRefreshToken
        case rateLimited(retryAfterSeconds: Int)
        case hashingBusy
        case registrationClosed
    }

    private let code: Code

    private init(_ code: Code) { self.code = code }

    /// A param or argument is malformed; `field` names it.
    public static func invalidField(_ field: String, _ reason: String) -> AuthError {
        AuthError(.invalidField(field: field, reason: reason))
    }

    /// `auth.register` with a username someone already has.
    public static let usernameTaken = AuthError(.usernameTaken)

    /// Creating a client whose id is already in use.
    public static func clientExists(_ clientID: String) -> AuthError { AuthError(.clientExists(clientID)) }

    /// Wrong username or password (never says which).
    public static let invalidCredentials = AuthError(.invalidCredentials)

    /// Wrong client id or secret (never says which).
    public static let invalidClientCredentials = AuthError(.invalidClientCredentials)

    /// A refresh token that is unknown, expired, already used or whose family is revoked.
    public static let invalidRefreshToken = AuthError(.invalidRefreshToken)

    /// Too many failed attempts, or calls, from one client address (or for one account from it).
    public static func rateLimited(retryAfterSeconds: Int) -> AuthError {
        AuthError(.rateLimited(retryAfterSeconds: retryAfterSeconds))
    }

    /// Too many password checks running and waiting (service-wide, or for one client address).
    public static let hashingBusy = AuthError(.hashingBusy)

    /// `auth.register` while `SECUREPUSH_SELF_REGISTRATION=false`.
    public static let registrationClosed = AuthError(.registrationClosed)

    public var description: String { rpcError.message }

    /// The field and reason of an `invalidField` error.
    var invalidField: (field: String, reason: String)? {
        if case .invalidField(let field, let reason) = code { (field, reason) } else { nil }
    }
}

extension AuthError: RPCErrorConvertible {
    /// The wire form of each error, and the only place that chooses it.
    public var rpcError: RPCError {
        switch code {
        case .invalidField(let field, let reason): .invalidParams(field: field, reason)
        case .usernameTaken: .conflict("username is already taken")
        case .clientExists(let clientID): .conflict("client '\(clientID)' already exists")
        case .invalidCredentials: .unauthenticated("invalid username or password")
        case .invalidClientCredentials: .unauthenticated("invalid client credentials")
        case .invalidRefreshToken: .unauthenticated("refresh token is invalid, expired or revoked")
        case .rateLimited(let seconds): .rateLimited(retryAfterSeconds: seconds)
        case .hashingBusy: .rateLimited(retryAfterSeconds: 1)
        case .registrationClosed:
            RPCError(
                code: RPCErrorCode.forbidden,
                message: "Forbidden: self-registration is closed; accounts are created by an operator")
        }
    }
}
