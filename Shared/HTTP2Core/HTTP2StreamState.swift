import NIOCore

/// What the core keeps for one open stream: the request while it arrives, then the response body not yet sent.
/// A few hundred bytes once the request has been handed off (headers and body are released then).
final class HTTP2StreamState {
    enum Phase {
        /// Headers and body arriving.
        case receiving
        /// Handed to the handler (or answered early with 413/431, the rest of the request then discarded), no
        /// response submitted yet.
        case handling
        /// A complete response submitted.
        case responding
        /// A streaming response open: chunks come through `write`, then `end`.
        case streaming
    }

    var phase = Phase.receiving
    var method: String?
    var path: String?
    var authority: String?
    var headers = HTTP2Headers()
    /// Decoded header list size so far, counted as RFC 9113 §6.5.2 does.
    var headerListBytes = 0
    var headersTooLarge = false
    /// `content-length`, when the client declared one.
    var declaredLength: Int?
    var body: ByteBuffer?

    /// Response bytes the data provider has not yet given to nghttp2. The provider reads from here, so this buffer
    /// lives (in this object, in the handler's `streams`) at least as long as the stream's data provider.
    var outbound = ByteBuffer()
    /// No more response bytes will come: the provider ends the stream once `outbound` is empty.
    var outboundEnded = false
    /// Bytes ever queued on `outbound` and bytes ever handed to nghttp2, to complete write promises in order.
    var bytesQueued = 0
    var bytesSent = 0
    var writePromises: [(upTo: Int, promise: EventLoopPromise<Void>)] = []
    var closeCallbacks: [@Sendable () -> Void] = []
}
