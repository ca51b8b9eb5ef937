import NIOCore

/// A response: status, header fields and a body sent in full (`content-length` is added by the core).
public struct HTTP2Response: Sendable {
    /// The HTTP status code, e.g. `200`, `204`, `413`.
    public var status: Int
    /// Header fields; names are sent lowercase. Connection-specific fields (`connection`, `transfer-encoding`…) are
    /// not allowed in HTTP/2 and must not be set.
    public var headers: HTTP2Headers
    /// The body; empty sends none (a `204` must have none).
    public var body: ByteBuffer

    /// A response.
    public init(status: Int, headers: HTTP2Headers = [:], body: ByteBuffer = ByteBuffer()) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}
