import Foundation

/// What an HTTP answer to a JSON-RPC call gives the caller, whatever the HTTP client: 200 its body, 204 nothing (a
/// notification), another status its body when that is a JSON-RPC response (an error the server sent with it), else
/// `-32050` naming the peer and the status.
public enum RPCHTTPAnswer {
    public static func body(status: Int, data: Data, peerName: String) throws -> Data? {
        switch status {
        case 200:
            return data
        case 204:
            return nil
        default:
            if (try? RPCCodec.makeDecoder().decode(RPCResponseEnvelope<JSONValue>.self, from: data)) != nil {
                return data
            }
            throw RPCError.unavailable(peerName, "HTTP \(status)")
        }
    }
}
