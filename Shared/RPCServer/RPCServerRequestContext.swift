import Hummingbird
import NIOCore

/// The request context of every SecurePush route: Hummingbird's basics plus the connection's remote address.
public struct RPCServerRequestContext: RequestContext, RemoteAddressRequestContext {
    /// Hummingbird's per-request storage (logger, parameters, allocator).
    public var coreContext: CoreRequestContextStorage
    /// The socket's peer (for HTTP/2 streams, the peer of the connection carrying them).
    public let remoteAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.remoteAddress = source.channel.remoteAddress
    }
}
