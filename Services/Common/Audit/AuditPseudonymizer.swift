import Crypto
import Foundation
import SharedModels

/// Turns people's identifiers into what the trail stores: `u:` + base64url(HMAC-SHA256(k_owner, id)) when the owner
/// has a key, else `d:` + the HMAC under the day's address key. Remembers what it computed in `cache` (the same user
/// and address recur across a busy batch, and across batches).
struct AuditPseudonymizer {
    let userKeys: [String: SymmetricKey]
    let addressKey: SymmetricKey
    /// Names the address key in the cache (its day, or the process's fallback).
    let addressKeyTag: String
    var cache: AuditPseudonymCache

    /// The pseudonym of `id`, owned by `owner` (`nil`: an address, or someone without a key).
    mutating func pseudonym(_ id: String, owner: String?) -> String {
        if let owner, let key = userKeys[owner] {
            return cache.pseudonym(.init(underUserKey: true, keyName: owner, id: id)) {
                Self.mac(id, key: key, prefix: "u:")
            }
        }
        return cache.pseudonym(.init(underUserKey: false, keyName: addressKeyTag, id: id)) {
            Self.mac(id, key: addressKey, prefix: "d:")
        }
    }

    static func mac(_ text: String, key: SymmetricKey, prefix: String) -> String {
        prefix + Base64URL.encode(HMAC<SHA256>.authenticationCode(for: Data(text.utf8), using: key))
    }
}

/// Pseudonyms already computed, by key and identifier; emptied when full and whenever a key may have gone (an
/// erasure), so a pseudonym is never written under a key that no longer exists.
struct AuditPseudonymCache {
    /// Most pseudonyms kept.
    static let capacity = 50_000
    /// What a pseudonym was computed from: the key (a user's, named by the user id, or the day's address key, named
    /// by its tag) and the identifier.
    struct Key: Hashable {
        var underUserKey: Bool
        var keyName: String
        var id: String
    }

    private var entries: [Key: String] = [:]
    /// Grows with every ``removeAll()``: a copy taken before it must not be stored back.
    private(set) var generation = 0

    mutating func pseudonym(_ key: Key, _ compute: () -> String) -> String {
        if let known = entries[key] { return known }
        if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
        let computed = compute()
        entries[key] = computed
        return computed
    }

    mutating func removeAll() {
        entries.removeAll()
        generation += 1
    }
}
