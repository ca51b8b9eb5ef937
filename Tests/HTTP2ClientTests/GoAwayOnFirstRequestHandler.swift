import NIOCore

/// Plays a server that is going away: when the client's first HEADERS frame arrives, it answers with
/// GOAWAY(last stream 0), so the peer has processed no stream, and ignores the connection from then on.
/// Sits in front of the server's HTTP/2 handler, on the raw bytes.
final class GoAwayOnFirstRequestHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private var received = ByteBuffer()
    private var sentGoAway = false
    private static let prefaceLength = 24  // "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !sentGoAway else { return }
        var bytes = unwrapInboundIn(data)
        received.writeBuffer(&bytes)
        guard containsHeadersFrame() else { return }
        sentGoAway = true
        var goAway = context.channel.allocator.buffer(capacity: 17)
        goAway.writeBytes([0, 0, 8, 0x7, 0])  // length 8, type GOAWAY, no flags
        goAway.writeInteger(UInt32(0))  // stream 0
        goAway.writeInteger(UInt32(0))  // last stream id 0: nothing was processed
        goAway.writeInteger(UInt32(0))  // NO_ERROR
        context.writeAndFlush(wrapOutboundOut(goAway), promise: nil)
    }

    /// Walks the frames after the connection preface looking for HEADERS (type 1).
    private func containsHeadersFrame() -> Bool {
        var offset = received.readerIndex + Self.prefaceLength
        while let header = received.getBytes(at: offset, length: 9) {
            let length = Int(header[0]) << 16 | Int(header[1]) << 8 | Int(header[2])
            if header[3] == 0x1 { return true }
            offset += 9 + length
        }
        return false
    }
}
