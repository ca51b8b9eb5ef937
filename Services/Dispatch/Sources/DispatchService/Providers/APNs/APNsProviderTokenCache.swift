import Crypto
import Foundation
import ServiceCore
import Synchronization

/// Hands out one provider token for its whole life and replaces it on Apple's schedule.
///
/// Apple accepts a token for one hour and answers `429 TooManyProviderTokenUpdates` when a provider changes
/// tokens more often than every 20 minutes. So the token is reused by every request (and every concurrent
/// stream), replaced once it is `refreshAge` old (50 minutes by default), and replaced early after a
/// `403 ExpiredProviderToken` only when it is at least `minimumAge` (20 minutes) old.
final class APNsProviderTokenCache: Sendable {
    /// What ``replace(_:)`` decided.
    enum Replacement: Sendable, Hashable {
        /// Use this token (new, or already replaced by a concurrent request).
        case token(APNsProviderToken)
        /// The rejected token is too young to be replaced yet; try again after this long.
        case tooSoon(retryAfter: Duration)
    }

    static let minimumAge: TimeInterval = 20 * 60

    private let keyID: String
    private let teamID: String
    private let key: P256.Signing.PrivateKey
    private let refreshAge: TimeInterval
    private let now: @Sendable () -> Date
    private let current = Mutex<APNsProviderToken?>(nil)

    /// - Parameters:
    ///   - refreshAge: the age at which the token is replaced before use, clamped to 20–59 minutes.
    ///   - now: the clock that stamps `iat` and ages tokens.
    init(
        keyID: String,
        teamID: String,
        key: P256.Signing.PrivateKey,
        refreshAge: Duration,
        now: @escaping @Sendable () -> Date
    ) {
        self.keyID = keyID
        self.teamID = teamID
        self.key = key
        self.refreshAge = min(max(refreshAge.timeInterval, Self.minimumAge), 59 * 60)
        self.now = now
    }

    /// The token to send now: the current one, or a new one when there is none or it reached `refreshAge`.
    func token() throws -> APNsProviderToken {
        try current.withLock { current in
            let now = now()
            if let token = current, now.timeIntervalSince(token.issuedAt) < refreshAge,
                now >= token.issuedAt
            {
                return token
            }
            let token = try sign(now: now)
            current = token
            return token
        }
    }

    /// After APNs answered `ExpiredProviderToken` to `rejected`: the token to retry with, or how long to wait.
    ///
    /// Concurrent requests rejected with the same token get the same single replacement.
    func replace(_ rejected: APNsProviderToken) throws -> Replacement {
        try current.withLock { current in
            if let token = current, token != rejected {
                return .token(token)
            }
            let now = now()
            let age = now.timeIntervalSince(rejected.issuedAt)
            guard age >= Self.minimumAge else {
                return .tooSoon(retryAfter: .seconds(Self.minimumAge - age))
            }
            let token = try sign(now: now)
            current = token
            return .token(token)
        }
    }

    private func sign(now: Date) throws -> APNsProviderToken {
        try APNsProviderToken.sign(keyID: keyID, teamID: teamID, key: key, now: now)
    }
}
