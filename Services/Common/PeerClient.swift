import HTTP2Client
import Logging
import SharedModels
import Tracing

/// A JSON-RPC client for another SecurePush service over one HTTP/2 connection, with the connection to close at the end.
public struct PeerClient: Sendable {
    /// The typed client.
    public let rpc: RPCClient
    /// The connection under it.
    public let http: HTTP2Client

    /// - Parameters:
    ///   - url: the peer's base URL, `http://` (cleartext HTTP/2) or `https://` (TLS, ALPN h2).
    ///   - peerName: names the peer in `-32050` errors.
    ///   - caFile: a PEM CA to trust for `https` (a private CA); `nil` uses the system trust store.
    ///   - tracer: traces every call (a client span, `traceparent` sent along); `nil` traces nothing.
    public init(url: String, peerName: String, caFile: String?, logger: Logger, tracer: (any Tracer)? = nil) throws {
        var configuration = HTTP2ClientConfiguration()
        configuration.trustRootsPEMFile = caFile
        http = try HTTP2Client(baseURL: url, configuration: configuration, logger: logger)
        rpc = RPCClient(
            transport: HTTP2RPCTransport(client: http, peerName: peerName, tracer: tracer), peerName: peerName)
    }

    /// Closes the connection.
    public func shutdown() async {
        await http.shutdown()
    }
}

/// A JSON-RPC client for a peer service (see `PeerClient`); the connection lives as long as the process.
public func makePeerClient(
    url: String, peerName: String, caFile: String?, logger: Logger, tracer: (any Tracer)? = nil
) throws -> RPCClient {
    try PeerClient(url: url, peerName: peerName, caFile: caFile, logger: logger, tracer: tracer).rpc
}
