import Foundation
import SealedPush
import SharedModels

/// What can go wrong in the notification store, mapped onto the stable JSON-RPC codes in one place.
public struct StoreError: Error, Hashable, RPCErrorConvertible, CustomStringConvertible {
    private enum Code: Hashable {
        case invalidField(field: String, reason: String)
        case notFound
        case corruptPayload
        case gone(readAt: Date)
        case deviceProofRefused
        case deviceRevoked
        case proofQuotaExceeded(limit: Int, retryAfterSeconds: Int)
        case proofRateLimited(limit: Int, retryAfterSeconds: Int)
    }

    private let code: Code

    private init(_ code: Code) { self.code = code }

    /// A parameter is malformed or out of bounds; the message names it.
    public static func invalidField(_ field: String, _ reason: String) -> StoreError {
        StoreError(.invalidField(field: field, reason: reason))
    }

    /// The notification does not exist, has expired, or is not the caller's: callers cannot tell which.
    public static let notFound = StoreError(.notFound)

    /// A stored payload could not be opened (e.g. it was sealed with a scheme this build does not know).
    public static let corruptPayload = StoreError(.corruptPayload)

    /// A read-once notification was already fetched (`-32010` with `data.readAt`); only its recipient learns this.
    public static func gone(readAt: Date) -> StoreError { StoreError(.gone(readAt: readAt)) }

    /// A device proof was refused (`-32001`); why goes to the security log only.
    public static let deviceProofRefused = StoreError(.deviceProofRefused)

    /// push-dispatch revoked the device after the notification was created (`-32001 Unauthenticated: device
    /// revoked`): it was unregistered, re-keyed, moved or deactivated, and its copy was deleted.
    public static let deviceRevoked = StoreError(.deviceRevoked)

    /// The device already had `limit` proofs accepted within the quota window (`-32029` with
    /// `data: {quota: "proofsPerDevice", limit, retryAfterSeconds}`); other devices are unaffected.
    public static func proofQuotaExceeded(limit: Int, retryAfterSeconds: Int) -> StoreError {
        StoreError(.proofQuotaExceeded(limit: limit, retryAfterSeconds: retryAfterSeconds))
    }

    /// The client address made `limit` fetches with a proof within the minute (`-32029` with
    /// `data: {quota: "proofsPerAddress", limit, retryAfterSeconds}`); other addresses are unaffected.
    public static func proofRateLimited(limit: Int, retryAfterSeconds: Int) -> StoreError {
        StoreError(.proofRateLimited(limit: limit, retryAfterSeconds: retryAfterSeconds))
    }

    public var rpcError: RPCError {
        switch code {
        case .invalidField(let field, let reason): .invalidParams(field: field, reason)
        // One message for every reason, so existence is never revealed.
        case .notFound: .notFound("notification")
        // Details stay in the server log.
        case .corruptPayload: .internalError
        case .gone(let readAt): .gone(readAt: readAt)
        case .deviceProofRefused: .unauthenticated("invalid device proof")
        case .deviceRevoked: .unauthenticated("device revoked")
        case .proofQuotaExceeded(let limit, let retryAfterSeconds):
            RPCError(
                code: RPCErrorCode.rateLimited,
                message:
                    "Quota exceeded: proofsPerDevice is limited to \(limit) within \(Int(DeviceProof.window) * 2) s",
                data: .object([
                    "quota": .string("proofsPerDevice"), "limit": .int(Int64(limit)),
                    "retryAfterSeconds": .int(Int64(retryAfterSeconds)),
                ]))
        case .proofRateLimited(let limit, let retryAfterSeconds):
            RPCError(
                code: RPCErrorCode.rateLimited,
                message: "Quota exceeded: proofsPerAddress is limited to \(limit) per minute",
                data: .object([
                    "quota": .string("proofsPerAddress"), "limit": .int(Int64(limit)),
                    "retryAfterSeconds": .int(Int64(retryAfterSeconds)),
                ]))
        }
    }

    public var description: String {
        switch code {
        case .invalidField(let field, let reason): "invalid \(field): \(reason)"
        case .notFound: "notification not found"
        case .corruptPayload: "stored payload could not be opened"
        case .gone(let readAt): "read-once notification gone since \(readAt)"
        case .deviceProofRefused: "device proof refused"
        case .deviceRevoked: "device revoked"
        case .proofQuotaExceeded(let limit, _): "device proof quota of \(limit) exceeded"
        case .proofRateLimited(let limit, _): "\(limit) fetches with a proof per minute from one address exceeded"
        }
    }
}
