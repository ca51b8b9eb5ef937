import Foundation
import HTTP2Client
import JSONRPC
import Logging
import NIOCore
import SecurePushDeviceCore

/// The device SDK's transport on our HTTP/2 client (libnghttp2): one connection per service, JSON-RPC over
/// ``HTTP2RPCTransport``, the direct channel as a streamed `GET`. What the CLI, the tests and Linux servers use.
public struct HTTP2DeviceTransport: SecurePushTransport {
    private let clients: [SecurePushService: HTTP2Client]

    /// - Parameters:
    ///   - endpoints: where the services are.
    ///   - configuration: timeouts; its `trustRootsPEMFile` is replaced by `endpoints.caFile` when that is set.
    public init(endpoints: SecurePushEndpoints, configuration: HTTP2ClientConfiguration = .init(), logger: Logger)
        throws
    {
        var configuration = configuration
        if let caFile = endpoints.caFile { configuration.trustRootsPEMFile = caFile }
        clients = [
            .auth: try HTTP2Client(baseURL: endpoints.auth, configuration: configuration, logger: logger),
            .store: try HTTP2Client(baseURL: endpoints.store, configuration: configuration, logger: logger),
            .dispatch: try HTTP2Client(baseURL: endpoints.dispatch, configuration: configuration, logger: logger),
        ]
    }

    private func client(_ service: SecurePushService) -> HTTP2Client { clients[service]! }

    public func rpc(_ service: SecurePushService, extraHeaders: [(String, String)]) -> any RPCTransport {
        HTTP2RPCTransport(client: client(service), peerName: service.rawValue, extraHeaders: extraHeaders)
    }

    public func eventStream(
        path: String, headers: [(String, String)], opened: @Sendable () -> Void,
        received: @Sendable (Data) throws -> Void
    ) async throws -> Int {
        let request = HTTP2Request(method: .GET, path: path, headers: headers)
        return try await client(.dispatch).withStreamingResponse(request) { response -> Int in
            guard response.status == 200 else { return response.status }
            opened()
            for try await chunk in response.body { try received(Data(chunk.readableBytesView)) }
            return 200
        }
    }

    public func shutdown() async {
        for service in SecurePushService.allCases { await client(service).shutdown() }
    }
}
