/// A response whose body arrives piece by piece, e.g. `text/event-stream`.
///
/// Only valid inside the closure given to ``HTTP2Client/withStreamingResponse(_:_:)``.
public struct HTTP2StreamingResponse: Sendable {
    /// The HTTP status code.
    public var status: Int
    /// Response headers, names in lower case as HTTP/2 sends them.
    public var headers: [(String, String)]
    /// The body chunks as they arrive.
    public var body: HTTP2ResponseBody

    /// The first value of the header `name`, compared case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.0.caseInsensitiveEquals(name) }?.1
    }
}
