import Foundation
import JSONRPC

/// A transport that answers every request with the same canned bytes.
struct CannedTransport: RPCTransport {
    var response: Data?

    func post(_ body: Data, bearerToken: String?) async throws -> Data? { response }
}
