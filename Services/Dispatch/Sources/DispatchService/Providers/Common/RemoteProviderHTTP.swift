import AsyncHTTPClient
import NIOCore
import NIOSSL

/// The HTTPS plumbing FCM and WNS share: one AsyncHTTPClient per provider and whole-body exchanges.
enum RemoteProviderHTTP {
    /// A response read completely (provider answers are small JSON documents or empty).
    struct Response: Sendable {
        /// The status code.
        var status: UInt
        /// Header values by lowercased name (the first value when a header repeats).
        var headers: [String: String]
        var body: ByteBuffer

        /// The value of header `name` (any case).
        func header(_ name: String) -> String? { headers[name.lowercased()] }
    }

    /// Largest response body read; longer ones are cut off (only error details live there).
    static let maxResponseBytes = 64 * 1024

    /// A client that trusts only the CA in `caFile` when given (tests, sandboxes), else the system store.
    ///
    /// Redirects are refused: following one would hand our bearer token to whatever host it names. The caller owns
    /// the client and must `shutdown()` it.
    static func makeClient(caFile: String?, connectTimeout: Duration) throws -> HTTPClient {
        var tls = TLSConfiguration.makeClientConfiguration()
        if let caFile {
            tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(caFile))
        }
        let configuration = HTTPClient.Configuration(
            tlsConfiguration: tls,
            redirectConfiguration: .disallow,
            timeout: .init(connect: TimeAmount(connectTimeout))
        )
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// Sends `request` and reads the whole response, all within `timeout`.
    static func execute(_ request: HTTPClientRequest, on client: HTTPClient, timeout: Duration) async throws
        -> Response
    {
        let deadline = NIODeadline.now() + TimeAmount(timeout)
        let response = try await client.execute(request, deadline: deadline)
        var body = ByteBuffer()
        for try await chunk in response.body {
            let room = maxResponseBytes - body.readableBytes
            guard room > 0 else { break }
            var chunk = chunk
            if let slice = chunk.readSlice(length: min(room, chunk.readableBytes)) {
                body.writeImmutableBuffer(slice)
            }
        }
        var headers: [String: String] = [:]
        for (name, value) in response.headers where headers[name.lowercased()] == nil {
            headers[name.lowercased()] = value
        }
        return Response(status: response.status.code, headers: headers, body: body)
    }
}
