import NIOCore

/// A complete request (headers and body) as the core hands it to a handler, from HTTP/2 or the HTTP/1.1 fallback.
public struct HTTP2Request: Sendable {
    /// `:method` (HTTP/2) or the request line's method (HTTP/1.1).
    public var method: String
    /// `:path` (HTTP/2) or the request target (HTTP/1.1), query included.
    public var path: String
    /// `:authority` (HTTP/2) or the `Host` header (HTTP/1.1).
    public var authority: String?
    /// The regular (non-pseudo) header fields, names lowercase.
    public var headers: HTTP2Headers
    /// The whole body, at most the configured `maxBodyBytes`.
    public var body: ByteBuffer
    /// The connection's peer.
    public var remoteAddress: SocketAddress?
    /// `2` for HTTP/2, `1` for the HTTP/1.1 fallback.
    public var httpVersion: Int

    /// A request, e.g. for tests of a handler.
    public init(
        method: String, path: String, authority: String? = nil, headers: HTTP2Headers = [:],
        body: ByteBuffer = ByteBuffer(), remoteAddress: SocketAddress? = nil, httpVersion: Int = 2
    ) {
        self.method = method
        self.path = path
        self.authority = authority
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
        self.httpVersion = httpVersion
    }
}
