import Foundation
import ServiceCore

/// Bounds the fetches with a device proof one client address may make per minute
/// (`SECUREPUSH_STORE_PROOF_RATE_LIMIT`): each costs a signature check and, when accepted, a replay-cache entry, so an
/// address sending proofs by the thousand (valid or not) is slowed down before either. Beyond the limit the address
/// gets `-32029` `{quota: "proofsPerAddress", limit, retryAfterSeconds}`; other addresses are unaffected. IPv6
/// addresses count by their /64 (``AddressLabel``). On PostgreSQL the counts are shared by every replica
/// (``SQLAttemptCounters``); on SQLite they are kept in the one process's memory.
public struct ProofRateLimiter: Sendable {
    let counters: any AttemptCounters
    let perMinute: Int

    /// The store's counters table (``SQLAttemptCounters``), named apart from auth's: services may share a schema.
    public static let table = "proof_address_counters"
    let now: @Sendable () -> Date

    /// - Parameters:
    ///   - counters: where the counts live (in memory, or the database's `attempt_counters`).
    ///   - perMinute: fetches with a proof one address may make per minute.
    ///   - now: the clock.
    public init(counters: any AttemptCounters, perMinute: Int, now: @escaping @Sendable () -> Date = { Date() }) {
        self.counters = counters
        self.perMinute = perMinute
        self.now = now
    }

    /// Counts one fetch with a proof from `address`; throws `StoreError.proofRateLimited` beyond the limit.
    public func admit(address: String?) async throws {
        let key = "proof:" + AddressLabel.of(address)
        switch try await counters.reserve(key, limit: perMinute, window: 60, at: now()) {
        case .counted: return
        case .refused(let retryAfterSeconds):
            throw StoreError.proofRateLimited(limit: perMinute, retryAfterSeconds: retryAfterSeconds)
        }
    }

    /// Forgets windows that ended (the store's purge calls it).
    func purge() async throws {
        _ = try await counters.purge(expiredBefore: now())
    }
}
