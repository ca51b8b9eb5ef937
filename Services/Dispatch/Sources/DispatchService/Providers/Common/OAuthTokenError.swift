/// Getting an access token failed: the token endpoint was unreachable, refused our credentials or answered nonsense.
///
/// The message never contains a secret (no client secret, no assertion, no token).
struct OAuthTokenError: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}
