import NIOCore

/// Plays a server that is going away: when the client's first HEADERS frame arrives, it answers with GOAWAY and
/// ignores the connection from then on, or also closes its side of it at once.
/// Sits in front of the server's HTTP/2 handler, on the raw bytes, so the server itself never sees the request.
final class GoAwayOnFirstRequestHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let lastStreamID: UInt32
    private let closesConnection: Bool
    private var received = ByteBuffer()
    private var sentGoAway = false
    private static let prefaceLength = 24  // "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

    /// - Parameters:
    ///   - lastStreamID: the last stream the GOAWAY claims was processed: 0 for none, `Int32.max` when the
    ///     server does not say (the first GOAWAY of a graceful shutdown).
    ///   - closesConnection: whether the server closes its side right after the GOAWAY. It still reads (and
    ///     drops) what the client sends, so the client sees the GOAWAY and then the end of the connection,
    ///     never a TCP reset that could swallow the GOAWAY.
    init(lastStreamID: UInt32 = 0, closesConnection: Bool = false) {
        self.lastStreamID = lastStreamID
        self.closesConnection = closesConnection
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !sentGoAway else { return }
        var bytes = unwrapInboundIn(data)
        received.writeBuffer(&bytes)
        guard containsHeadersFrame() else { return }
        sentGoAway = true
        let goAway = Self.goAwayFrame(lastStreamID: lastStreamID, allocator: context.channel.allocator)
        let written = context.writeAndFlush(wrapOutboundOut(goAway))
        if closesConnection {
            let context = NIOLoopBound(context, eventLoop: context.eventLoop)
            written.whenComplete { _ in context.value.close(mode: .output, promise: nil) }
        }
    }

    /// A GOAWAY frame with NO_ERROR, as it travels on the wire.
    static func goAwayFrame(lastStreamID: UInt32, allocator: ByteBufferAllocator) -> ByteBuffer {
        var frame = allocator.buffer(capacity: 17)
        frame.writeBytes([0, 0, 8, 0x7, 0])  // length 8, type GOAWAY, no flags
        frame.writeInteger(UInt32(0))  // stream 0
        frame.writeInteger(lastStreamID)
        frame.writeInteger(UInt32(0))  // NO_ERROR
        return frame
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
