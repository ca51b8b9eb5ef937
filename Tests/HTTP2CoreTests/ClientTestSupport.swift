import Foundation
import HTTP2Core
import Logging
import NIOCore
import NIOPosix

/// Opens a core client connection to 127.0.0.1.
func connectClient(
    port: Int, tls: HTTP2ClientConnection.TLS? = nil,
    configuration: HTTP2ClientSessionConfiguration = HTTP2ClientSessionConfiguration()
) async throws -> HTTP2ClientConnection {
    try await HTTP2ClientConnection.connect(
        host: "127.0.0.1", port: port, tls: tls, connectTimeout: .seconds(10), configuration: configuration,
        eventLoopGroup: MultiThreadedEventLoopGroup.singleton, logger: Logger(label: "h2core-client-test"))
}

extension HTTP2ClientConnection {
    /// Sends a request and reads the whole response: (status, body).
    func fetch(
        _ path: String, method: String = "GET", body: ByteBuffer? = nil, authority: String = "127.0.0.1",
        scheme: String = "http", bodyLimit: Int? = 16 << 20
    ) async throws -> (status: Int, body: ByteBuffer) {
        let stream = request(
            HTTP2ClientRequestHead(method: method, scheme: scheme, authority: authority, path: path),
            body: body, bodyLimit: bodyLimit)
        let head = try await stream.head()
        var received = ByteBuffer()
        while var chunk = try await stream.nextChunk() {
            received.writeBuffer(&chunk)
        }
        return (head.status, received)
    }
}
