/// Why ``HTTP2ClientConnection/connect(host:port:tls:connectTimeout:configuration:eventLoopGroup:logger:)`` failed.
package struct HTTP2ClientConnectError: Error, Sendable, CustomStringConvertible {
    package enum Kind: Sendable {
        /// TCP: refused, unreachable, timed out.
        case connect
        /// TLS: handshake failed or timed out, or ALPN did not pick `h2`.
        case tls
        /// HTTP/2: the peer's first SETTINGS did not come (it spoke something else, or closed).
        case http2
    }

    /// What failed.
    package var kind: Kind
    /// Why, for logs.
    package var detail: String

    package var description: String { detail }
}
