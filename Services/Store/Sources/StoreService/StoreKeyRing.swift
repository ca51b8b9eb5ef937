import Foundation

/// The store's keys, oldest first: the last encrypts new payloads, every one of them decrypts.
public struct StoreKeyRing: Sendable {
    /// Every key, in file order.
    public let keys: [StoreKey]

    /// A ring of `keys` (at least one, ids unique); `nil` otherwise.
    public init?(_ keys: [StoreKey]) {
        guard !keys.isEmpty, Set(keys.map(\.id)).count == keys.count else { return nil }
        self.keys = keys
    }

    /// The key that encrypts: the last one.
    public var current: StoreKey { keys[keys.count - 1] }

    /// The key named `id`, if the ring holds it.
    public func key(id: String) -> StoreKey? {
        keys.last { $0.id == id }
    }

    /// A ring of one new random key (tests and in-memory stores).
    public static func generate(now: Date = Date()) -> StoreKeyRing {
        StoreKeyRing([StoreKey.generate(now: now)])!
    }
}
