import Crypto
import Foundation
import JSONRPC
import ServiceCore
import SharedModels

extension AuthenticationService {
    /// `auth.auditKeys`: the keys of those of `params.userIds` that have an account (made when first asked for), and
    /// today's address key, for `client` (push-dispatch's or the store's own client, `audit:keys`). Throws `-32602`
    /// naming `userIds` beyond ``Auth/AuditKeys/maxUserIDs``.
    public func auditKeys(_ params: Auth.AuditKeys.Params, for client: String) async throws -> Auth.AuditKeys.Result {
        guard params.userIds.count <= Auth.AuditKeys.maxUserIDs else {
            throw AuthError.invalidField("userIds", "must name at most \(Auth.AuditKeys.maxUserIDs) user ids")
        }
        guard let keyring = audit?.keyring else {
            throw RPCError.unavailable("audit", "auth keeps no audit trail here")
        }
        // Longer than any user id (a UUID) cannot name one: not worth a query.
        let ids = Set(params.userIds.filter { $0.utf8.count <= 64 })
        let keys = try await keyring.userKeys(ids)
        let day = AuditDay.of(now())
        let addressKey = try await keyring.addressKey(day: day)
        return Auth.AuditKeys.Result(
            keys: keys.map { .init(userId: $0.key, key: Self.text(of: $0.value)) }.sorted { $0.userId < $1.userId },
            addressKey: .init(day: day, key: Self.text(of: addressKey)))
    }

    private static func text(of key: SymmetricKey) -> String {
        key.withUnsafeBytes { Data($0) }.base64URLEncodedString()
    }
}
