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
    /// The client has sent END_STREAM: its request is complete (or, after a refusal, its discarded rest is).
    var remoteEnded = false
    /// When the request must have arrived completely (``HTTP2Limits/requestTimeout`` after its HEADERS).
    var receiveDeadline: NIODeadline
    /// Body bytes received and kept but not yet credited back to the client (the connection's buffer budget was
    /// full): credited when the budget frees or the stream leaves the receiving phase.
    var unconsumed = 0
    /// The client has not finished its request but our complete answer is going out (a refusal): once it is sent,
    /// RST_STREAM(NO_ERROR) tells the client to stop sending (RFC 9113 §8.1) and frees the stream.
    var resetAfterResponse = false
    /// Since when response bytes have been waiting without any being sent (`nil`: none waiting).
    var waitingSince: NIODeadline?
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

    init(receiveDeadline: NIODeadline) {
        self.receiveDeadline = receiveDeadline
    }
}
