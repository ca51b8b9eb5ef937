import NIOCore

/// The first handler of a cleartext connection: reads its first bytes and hands the connection to HTTP/2 when they
/// begin the HTTP/2 connection preface (`PRI * HTTP/2.0…`, prior knowledge), else to HTTP/1.1. Browsers speak only
/// HTTP/1.1 in cleartext, and there is no `Upgrade: h2c`: the first bytes decide, and the bytes read so far go on to
/// the chosen protocol's handlers.
///
/// A client that sends nothing decidable within ``HTTP2Limits/handshakeTimeout`` is disconnected, like a TLS client that
/// never finishes its handshake. At most four bytes are ever held here.
final class CleartextProtocolDetector: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    /// The protocol the first bytes chose.
    enum Choice {
        case http2
        case http1
    }

    /// The start of the preface that decides: no HTTP/1.1 request line begins with `PRI ` (RFC 9113 §3.4 chose it so).
    private static let prefacePrefix: [UInt8] = Array("PRI ".utf8)

    private let handshakeTimeout: TimeAmount
    private let configure: (ChannelPipeline.SynchronousOperations, Choice) throws -> Void
    private var buffered: ByteBuffer?
    private var timer: Scheduled<Void>?

    /// A detector that calls `configure` with the chosen protocol, adding that protocol's handlers after it.
    init(
        handshakeTimeout: TimeAmount,
        configure: @escaping (ChannelPipeline.SynchronousOperations, Choice) throws -> Void
    ) {
        self.handshakeTimeout = handshakeTimeout
        self.configure = configure
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let channel = context.channel
        timer = context.eventLoop.scheduleTask(in: handshakeTimeout) { channel.close(promise: nil) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var chunk = unwrapInboundIn(data)
        if buffered == nil {
            buffered = chunk
        } else {
            buffered!.writeBuffer(&chunk)
        }
        guard let bytes = buffered, let choice = Self.choice(for: bytes.readableBytesView) else { return }
        timer?.cancel()
        timer = nil
        buffered = nil
        do {
            try configure(context.pipeline.syncOperations, choice)
        } catch {
            context.close(promise: nil)
            return
        }
        // The chosen handlers sit after this one: they get what was read, then this handler leaves.
        context.fireChannelRead(wrapInboundOut(bytes))
        context.fireChannelReadComplete()
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    /// HTTP/2 when the bytes begin with `PRI `, HTTP/1.1 as soon as they cannot, `nil` while undecided.
    static func choice(for bytes: ByteBufferView) -> Choice? {
        let prefix = Self.prefacePrefix
        for (offset, byte) in bytes.prefix(prefix.count).enumerated() where byte != prefix[offset] {
            return .http1
        }
        return bytes.count >= prefix.count ? .http2 : nil
    }
}
