import NIOCore
import Synchronization

/// Makes a test server's connection go silent on demand: open, but deaf, like a peer behind a dead NAT entry.
public final class BlackHole: Sendable {
    private let swallowing = Atomic(false)

    public init() {}

    /// From now on every byte the client sends on the connection is dropped.
    public func swallow() { swallowing.store(true, ordering: .sequentiallyConsistent) }

    /// Whether ``swallow()`` was called.
    public var isSwallowing: Bool { swallowing.load(ordering: .sequentiallyConsistent) }
}

/// First in a server connection's pipeline (before TLS): once its ``BlackHole`` swallows, it drops everything
/// received.
public final class BlackHoleHandler: ChannelInboundHandler {
    public typealias InboundIn = ByteBuffer
    public typealias InboundOut = ByteBuffer

    private let blackHole: BlackHole

    public init(blackHole: BlackHole) {
        self.blackHole = blackHole
    }

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if !blackHole.isSwallowing {
            context.fireChannelRead(data)
        }
    }
}
