import Foundation
import Logging

/// What a method handler knows about the call beyond its params: who is calling and where to log.
public struct RPCRequestContext: Sendable {
    /// The token from `Authorization: Bearer <token>`, if any. Tokens never travel in params.
    public var bearerToken: String?
    /// A logger carrying this request's `request.id`.
    ///
    /// The id is added when the logger is read, not when the request arrives: most requests log nothing, and adding
    /// metadata copies the log handler (2.4% of the store's samples per `store.get` when it was added up front). A
    /// logger assigned here is kept as it is.
    public var logger: Logger {
        get {
            guard let requestID else { return baseLogger }
            var logger = baseLogger
            logger[metadataKey: Self.requestIDKey] = .string(String(requestID))
            return logger
        }
        set {
            baseLogger = newValue
            requestID = nil
        }
    }
    /// The logger ``logger`` adds the `request.id` to.
    private var baseLogger: Logger
    /// The number the server gave this request, which ``logger`` adds as `request.id`; `nil`: none, or ``logger`` was
    /// assigned or changed in place since (a logger changed in place already carries the id in its own metadata).
    public private(set) var requestID: UInt64?
    /// The caller's IP address (the socket's peer, or the client a trusted proxy names); `nil` in process.
    public var clientAddress: String?
    /// The `SecurePush-Device-Proof` header, if any: how a device fetches its sealed copy without a token.
    public var deviceProof: String?
    /// The `Origin` header of a browser's call, lowercased; `nil` for clients that are not browsers.
    public var origin: String?
    /// Whether `origin` is the service's own (a page it serves, such as the web inbox, calling it).
    public var isOwnOrigin: Bool

    /// The logger metadata key of ``requestID``.
    public static let requestIDKey = "request.id"

    /// - Parameters:
    ///   - logger: where the handler logs; ``logger`` adds `request.id` to it when `requestID` is given.
    ///   - requestID: the number the server gave the request (`nil`: none, e.g. calls made in process).
    public init(
        bearerToken: String?, logger: Logger, requestID: UInt64? = nil, clientAddress: String? = nil,
        deviceProof: String? = nil, origin: String? = nil, isOwnOrigin: Bool = false
    ) {
        self.origin = origin
        self.isOwnOrigin = isOwnOrigin
        self.bearerToken = bearerToken
        self.baseLogger = logger
        self.requestID = requestID
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
