import NIOCore

/// A complete, buffered response.
public struct HTTP2Response: Sendable {
    /// The HTTP status code.
    public var status: Int
    /// Response headers, names in lower case as HTTP/2 sends them.
    public var headers: [(String, String)]
    /// The whole response body.
    public var body: ByteBuffer

    public init(status: Int, headers: [(String, String)], body: ByteBuffer) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of the header `name`, compared case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.0.caseInsensitiveEquals(name) }?.1
    }
}
