import NIOCore

/// What a client session keeps for one of its streams on the event loop: the request body not yet sent and the
/// response head while its fields arrive.
final class HTTP2ClientStreamState {
    /// Where the response goes.
    let consumer: HTTP2ClientStream
    /// Request body bytes the data provider has not yet given to nghttp2. The provider reads from here, so this
    /// buffer lives (in this object, in the session's `streams`) as long as the stream's data provider.
    var requestBody: ByteBuffer
    /// The response head being collected; reset by each informational (1xx) head.
    var status: Int?
    var headers: [(String, String)] = []
    /// Decoded header list size of the block being received, counted as RFC 9113 §6.5.2 does.
    var headerListBytes = 0
    /// The final head went to the consumer: later HEADERS are trailers, ignored.
    var headDelivered = false
    var headSent = false
    var bodyBytesReceived = 0

    init(consumer: HTTP2ClientStream, requestBody: ByteBuffer) {
        self.consumer = consumer
        self.requestBody = requestBody
    }
}
