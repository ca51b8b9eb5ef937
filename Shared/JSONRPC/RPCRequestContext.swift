import Foundation
import Logging

/// What a method handler knows about the call beyond its params: who is calling and where to log.
public struct RPCRequestContext: Sendable {
    /// The token from `Authorization: Bearer <token>`, if any. Tokens never travel in params.
    public var bearerToken: String?
    /// A logger carrying this request's `request.id`.
    public var logger: Logger
    /// The caller's IP address (the socket's peer, or the client a trusted proxy names); `nil` in process.
    public var clientAddress: String?
    /// The `SecurePush-Device-Proof` header, if any: how a device fetches its sealed copy without a token.
    public var deviceProof: String?
    /// The `Origin` header of a browser's call, lowercased; `nil` for clients that are not browsers.
    public var origin: String?
    /// Whether `origin` is the service's own (a page it serves, such as the web inbox, calling it).
    public var isOwnOrigin: Bool

    public init(
        bearerToken: String?, logger: Logger, clientAddress: String? = nil, deviceProof: String? = nil,
        origin: String? = nil, isOwnOrigin: Bool = false
    ) {
        self.origin = origin
        self.isOwnOrigin = isOwnOrigin
        self.bearerToken = bearerToken
        self.logger = logger
        self.clientAddress = clientAddress
        self.deviceProof = deviceProof
    }

    /// Reads the bearer token out of an `Authorization` header value; `nil` for any other scheme.
    public static func bearerToken(fromAuthorization header: String?) -> String? {
        guard let header else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        // Header values are ASCII in practice; trimming by hand avoids Foundation's CharacterSet (slow on Linux,
        // and this runs on every request).
        let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        var token = parts[1].drop(while: isBlank)
        while let last = token.last, isBlank(last) { token = token.dropLast() }
        return token.isEmpty ? nil : String(token)
    }
}
