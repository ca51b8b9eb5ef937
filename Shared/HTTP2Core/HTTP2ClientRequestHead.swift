/// The head of a request a client session sends: pseudo-header values and regular fields.
package struct HTTP2ClientRequestHead: Sendable {
    /// `:method`.
    package var method: String
    /// `:scheme`: `http` or `https`.
    package var scheme: String
    /// `:authority`.
    package var authority: String
    /// `:path`, starting with `/`.
    package var path: String
    /// Regular header fields; names are lowercased, connection-specific ones and `host` are dropped.
    package var headers: [(String, String)]

    /// A request head.
    package init(method: String, scheme: String, authority: String, path: String, headers: [(String, String)] = []) {
        self.method = method
        self.scheme = scheme
        self.authority = authority
        self.path = path
        self.headers = headers
    }
}
