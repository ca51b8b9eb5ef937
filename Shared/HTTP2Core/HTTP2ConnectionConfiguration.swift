/// What every connection of a server shares: the handler, the limits, and how refusals look on the wire.
struct HTTP2ConnectionConfiguration: Sendable {
    var handler: HTTP2RequestHandler
    var limits: HTTP2Limits
    /// The server's shared counters (buffered bytes).
    var load: HTTP2ServerLoad
    /// Builds the response for a request the core refuses itself (413, 431) from a status and a message.
    var rejection: @Sendable (Int, String) -> HTTP2Response
}
