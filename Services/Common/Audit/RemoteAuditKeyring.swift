import Crypto
import Foundation
import JSONRPC
import SharedModels
import Synchronization

/// The keys auth keeps, asked for with `auth.auditKeys` (push-dispatch's and the store's own clients carry
/// `audit:keys`). Wrap it in ``CachedAuditKeyring``.
public struct RemoteAuditKeyring: AuditKeyring {
    private let call: @Sendable (Auth.AuditKeys.Params) async throws -> Auth.AuditKeys.Result

    /// - Parameter call: calls `auth.auditKeys` with the service's client token.
    public init(call: @escaping @Sendable (Auth.AuditKeys.Params) async throws -> Auth.AuditKeys.Result) {
        self.call = call
    }

    public func userKeys(_ userIDs: Set<String>) async throws -> [String: SymmetricKey] {
        var keys: [String: SymmetricKey] = [:]
        let ids = Array(userIDs)
        for start in stride(from: 0, to: ids.count, by: Auth.AuditKeys.maxUserIDs) {
            let slice = ids[start..<min(start + Auth.AuditKeys.maxUserIDs, ids.count)]
            let result = try await call(.init(userIds: Array(slice)))
            for entry in result.keys {
                keys[entry.userId] = try Self.key(entry.key)
            }
        }
        return keys
    }

    public func addressKey(day: String) async throws -> SymmetricKey {
        // Auth answers its own day's key: around midnight the two clocks may differ by a day, and every entry of the
        // day this process asked for uses the same key all the same (the cache keeps it under `day`).
        try Self.key(try await call(.init(userIds: [])).addressKey.key)
    }

    /// Calls `auth` with the service's own client token from `tokens`.
    public init(auth: RPCClient, tokens: ClientCredentialsTokenProvider) {
        self.init { params in
            try await auth.call(Auth.AuditKeys.self, params, token: try await tokens.token())
        }
    }

    private static func key(_ text: String) throws -> SymmetricKey {
        guard let data = Data(base64URLEncoded: text), data.count == 32 else {
            throw RPCError.unavailable("auth", "auth.auditKeys answered a malformed key")
        }
        return SymmetricKey(data: data)
    }
}

/// A keyring for a service that has no client of auth's (the store in development without
/// `SECUREPUSH_STORE_CLIENT_ID`): no user keys, so every identifier is pseudonymised under an address key of the
/// day that lives only in this process's memory.
public final class EphemeralAuditKeyring: AuditKeyring {
    private let days = Mutex<[String: SymmetricKey]>([:])

    public init() {}

    public func userKeys(_ userIDs: Set<String>) async throws -> [String: SymmetricKey] { [:] }

    public func addressKey(day: String) async throws -> SymmetricKey {
        days.withLock { days in
            if let key = days[day] { return key }
            let key = SymmetricKey(size: .bits256)
            days = [day: key]
            return key
        }
    }
}
