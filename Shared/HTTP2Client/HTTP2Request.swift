import NIOCore
import NIOHTTP1

/// One request sent by an ``HTTP2Client``.
public struct HTTP2Request: Sendable {
    /// The request method.
    public var method: HTTPMethod
    /// The path and query, starting with `/`; appended to the client's base URL path.
    public var path: String
    /// Request headers; `host` (the `:authority`) and `content-length` are added when missing.
    public var headers: [(String, String)]
    /// The request body, if any.
    public var body: ByteBuffer?
    /// Overrides ``HTTP2ClientConfiguration/requestTimeout`` for this request.
    public var timeout: Duration?

    public init(
        method: HTTPMethod = .GET,
        path: String,
        headers: [(String, String)] = [],
        body: ByteBuffer? = nil,
        timeout: Duration? = nil
    ) {
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}
