import Foundation
import JSONRPC
import Synchronization

/// Wraps a transport and keeps every body and token it carried, so tests can look at the wire.
final class RecordingTransport: RPCTransport {
    struct Exchange: Sendable {
        var request: Data
        var bearerToken: String?
        var response: Data?
    }

    private let inner: any RPCTransport
    private let storage = Mutex<[Exchange]>([])

    init(_ inner: any RPCTransport) {
        self.inner = inner
    }

    /// Every exchange so far, oldest first.
    var exchanges: [Exchange] { storage.withLock { $0 } }

    func post(_ body: Data, bearerToken: String?) async throws -> Data? {
        let response = try await inner.post(body, bearerToken: bearerToken)
        storage.withLock { $0.append(Exchange(request: body, bearerToken: bearerToken, response: response)) }
        return response
    }
}
