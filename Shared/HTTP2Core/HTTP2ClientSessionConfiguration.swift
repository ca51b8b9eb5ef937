/// What an HTTP/2 client session enforces and advertises, and whom it tells about its connection's fate.
package struct HTTP2ClientSessionConfiguration: Sendable {
    /// Largest decoded response header list (names + values + 32 bytes each, as RFC 9113 counts it), advertised as
    /// SETTINGS_MAX_HEADER_LIST_SIZE; a larger one resets the stream.
    package var maxHeaderListBytes = 64 << 10
    /// The stream flow-control window (SETTINGS_INITIAL_WINDOW_SIZE): how much of a response the peer may send
    /// before the consumer has read it.
    package var streamWindowBytes = 256 << 10
    /// The connection flow-control window, shared by every stream.
    package var connectionWindowBytes = 16 << 20
    /// Called on the event loop when the peer sends GOAWAY, with its last stream id.
    package var onGoAway: @Sendable (Int32) -> Void = { _ in }
    /// Called on the event loop once, when the connection is closed.
    package var onClose: @Sendable () -> Void = {}

    /// The defaults: 64 KiB header lists, 256 KiB stream window, 16 MiB connection window.
    package init() {}
}
