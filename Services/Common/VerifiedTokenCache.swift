import Foundation
import Synchronization

/// Access tokens whose signature and claims already checked out, remembered until they expire, so a token
/// presented again (a device fetching, a backend sending) costs a dictionary lookup instead of a P-256 verification.
///
/// Bounded: when full, expired entries are dropped first, then everything (a burst of new tokens simply verifies
/// again). Entries signed by a key that stops being trusted are dropped when the keys are reloaded.
final class VerifiedTokenCache: Sendable {
    struct Entry: Sendable {
        var principal: Principal
        var expiresAt: Date
        var keyID: String
    }

    private let entries = Mutex<[String: Entry]>([:])
    private let capacity: Int

    init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    /// The principal of `token` if it was verified before and has not expired by `now`.
    func principal(for token: String, now: Date) -> Principal? {
        entries.withLock { entries in
            guard let entry = entries[token] else { return nil }
            guard now < entry.expiresAt else {
                entries[token] = nil
                return nil
            }
            return entry.principal
        }
    }

    /// Remembers a token that was just verified.
    func insert(_ token: String, _ entry: Entry, now: Date) {
        guard capacity > 0 else { return }
        entries.withLock { entries in
            if entries.count >= capacity {
                entries = entries.filter { now < $0.value.expiresAt }
                if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            }
            entries[token] = entry
        }
    }

    /// Forgets every token signed by a key not in `keyIDs`.
    func retain(keyIDs: Set<String>) {
        entries.withLock { entries in entries = entries.filter { keyIDs.contains($0.value.keyID) } }
    }

    var count: Int { entries.withLock { $0.count } }
}
