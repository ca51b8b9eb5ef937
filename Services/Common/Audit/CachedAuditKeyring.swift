import Crypto
import Foundation
import Synchronization

/// Keeps the keys another keyring gave for a while, so the trail's writer asks auth about a user once per
/// ``lifetime`` rather than once per batch. ``forget(_:)`` drops a user's key at once (an erasure).
public final class CachedAuditKeyring: AuditKeyring {
    private struct Entry {
        let key: SymmetricKey?
        let fetchedAt: ContinuousClock.Instant
    }

    private let base: any AuditKeyring
    /// How long a key (or the answer that a user has none) is kept.
    public let lifetime: Duration
    /// Most users kept; beyond it the cache starts over.
    public let capacity: Int
    private let users = Mutex<[String: Entry]>([:])
    private let days = Mutex<[String: SymmetricKey]>([:])

    public init(_ base: any AuditKeyring, lifetime: Duration = .seconds(300), capacity: Int = 100_000) {
        self.base = base
        self.lifetime = lifetime
        self.capacity = capacity
    }

    public func userKeys(_ userIDs: Set<String>) async throws -> [String: SymmetricKey] {
        let now = ContinuousClock.now
        var found: [String: SymmetricKey] = [:]
        var missing: Set<String> = []
        users.withLock { users in
            for id in userIDs {
                if let entry = users[id], entry.fetchedAt.duration(to: now) < lifetime {
                    if let key = entry.key { found[id] = key }
                } else {
                    missing.insert(id)
                }
            }
        }
        guard !missing.isEmpty else { return found }
        let fetched = try await base.userKeys(missing)
        users.withLock { users in
            if users.count + missing.count > capacity { users.removeAll(keepingCapacity: true) }
            for id in missing { users[id] = Entry(key: fetched[id], fetchedAt: now) }
        }
        return found.merging(fetched) { _, new in new }
    }

    public func addressKey(day: String) async throws -> SymmetricKey {
        if let key = days.withLock({ $0[day] }) { return key }
        let key = try await base.addressKey(day: day)
        days.withLock { days in
            days = days.filter { $0.key >= day }
            days[day] = key
        }
        return key
    }

    /// Drops `userID`'s key: the next entry about them asks again (and, once erased, gets none).
    public func forget(_ userID: String) {
        _ = users.withLock { $0.removeValue(forKey: userID) }
    }

    /// Drops the keys of every user `matches` picks (a replica told of an erasure by a digest of the user id).
    public func forget(where matches: (String) -> Bool) {
        users.withLock { users in
            for id in users.keys where matches(id) { users.removeValue(forKey: id) }
        }
    }
}
