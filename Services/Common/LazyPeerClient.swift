import JSONRPC
import Logging
import ServiceLifecycle
import Synchronization
import Tracing

/// A ``PeerClient`` made on first use, for a peer whose URL is known only after this service started (auth calling
/// the store and push-dispatch, which `securepush up` starts after auth, on ports they bind then). Run as a lifecycle
/// service: it closes its connection at graceful shutdown.
public final class LazyPeerClient: Service, Sendable {
    private let peerName: String
    private let url: @Sendable () throws -> String
    private let caFile: String?
    private let logger: Logger
    private let tracer: (any Tracer)?
    private let client = Mutex<PeerClient?>(nil)

    /// - Parameters:
    ///   - peerName: names the peer in `-32050` errors.
    ///   - url: the peer's base URL, asked for at first use.
    public init(
        peerName: String, url: @escaping @Sendable () throws -> String, caFile: String?, logger: Logger,
        tracer: (any Tracer)? = nil
    ) {
        self.peerName = peerName
        self.url = url
        self.caFile = caFile
        self.logger = logger
        self.tracer = tracer
    }

    /// The typed client, made now if it was not yet.
    public func rpc() throws -> RPCClient {
        try client.withLock { client in
            if let client { return client.rpc }
            let made = try PeerClient(
                url: try url(), peerName: peerName, caFile: caFile, logger: logger, tracer: tracer)
            client = made
            return made.rpc
        }
    }

    /// Waits for graceful shutdown (or cancellation), then closes the connection if one was made.
    public func run() async throws {
        try? await gracefulShutdown()
        if let made = client.withLock({ $0 }) { await made.shutdown() }
    }
}

/// Peer URLs learnt after a service started: `securepush up` tells auth where the store and push-dispatch listen once
/// they do.
public final class PeerAddresses: Sendable {
    private let urls = Mutex<[String: String]>([:])

    public init() {}

    /// Records `url` for the peer `name`.
    public func set(_ name: String, _ url: String) {
        urls.withLock { $0[name] = url }
    }

    /// The URL recorded for `name`, if any.
    public func url(_ name: String) -> String? {
        urls.withLock { $0[name] }
    }
}
