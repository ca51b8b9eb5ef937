/// Per-connection limits the core enforces (and advertises in its SETTINGS frame).
public struct HTTP2Limits: Sendable, Hashable {
    /// Largest request body; a larger one (declared by `content-length` or received) is answered with `413`.
    public var maxBodyBytes: Int = 1 << 20
    /// Largest decoded header list (names + values + 32 bytes each, as RFC 9113 counts it), advertised as
    /// SETTINGS_MAX_HEADER_LIST_SIZE; a larger one is answered with `431` and its fields are not kept.
    public var maxHeaderListBytes: Int = 16 << 10
    /// Most streams a client may have open at once (SETTINGS_MAX_CONCURRENT_STREAMS); more are refused.
    public var maxConcurrentStreams: Int = 100
    /// A connection with no open stream for this long is sent GOAWAY and closed.
    public var idleTimeout: Duration = .seconds(120)
    /// A TLS connection that has not finished its handshake (ALPN included) after this long is closed; an HTTP/2
    /// connection that has opened no stream after this long (from its handshake) is sent GOAWAY and closed.
    public var handshakeTimeout: Duration = .seconds(10)
    /// RST_STREAM frames a client may send in a burst, and per second after it, before the connection is torn down
    /// (the rapid-reset attack, CVE-2023-44487).
    public var streamResetBurst: Int = 1000
    /// See ``streamResetBurst``.
    public var streamResetsPerSecond: Int = 33
    /// Longest a client may take to *send* a request, from its HEADERS to END_STREAM (handling it is not bounded
    /// here). A request still arriving then is answered `408` (or reset, when an answer was already sent) and
    /// forgotten; on HTTP/1.1 it gets `408` and the connection closes.
    public var requestTimeout: Duration = .seconds(10)
    /// Request body bytes one connection may hold while they arrive (all its streams together). Past it the core
    /// stops returning flow-control credit, so the client can send at most one connection window (64 KiB) more
    /// until a request completes or times out. Also the most response bytes one streaming response may queue for a
    /// client that does not read.
    public var maxConnectionBufferBytes: Int = 2 << 20
    /// The HPACK dynamic table (in bytes, as RFC 7541 counts them) a client may keep in this server's decoder on a
    /// connection once the connection holds a streaming response; advertised then as SETTINGS_HEADER_TABLE_SIZE, and
    /// what the table already holds beyond it is dropped when the client acknowledges. 4,096 (the RFC's initial size)
    /// or more sends nothing. Such a connection (a device's event stream) stays open for hours, and every field its
    /// client indexes meanwhile (each new value of a header that varies: a bearer token, for clients that index it)
    /// stays in memory with it until the table is full: ~5 kB a connection with token-sized entries, a fifth of what an
    /// idle event stream costs in all. Its few other requests (an ack, a refresh) carry their fields as literals
    /// instead. RFC 7541 §4.2 requires the client to apply the smaller size at the start of its next header block; one
    /// that does not fails its connection with COMPRESSION_ERROR (counted in ``HTTP2ServerLoad/headerTableFailureCount``,
    /// logged at `notice` as `http2.header_table.not_applied`).
    public var streamingHeaderTableBytes: Int = 0

    /// The defaults: 1 MiB bodies, 16 KiB header lists, 100 concurrent streams, 120 s idle timeout, 10 s TLS
    /// handshake timeout, 10 s to send a request, 2 MiB of request bytes buffered per connection, no header table
    /// kept for a connection holding a streaming response.
    public init() {}
}
