import Foundation

/// The keys of a key file, oldest first: the last encrypts, every one of them decrypts.
public struct EncryptionKeyRing: Sendable {
    /// Every key, in file order.
    public let keys: [EncryptionKey]

    /// A ring of `keys` (at least one, ids unique); `nil` otherwise.
    public init?(_ keys: [EncryptionKey]) {
        guard !keys.isEmpty, Set(keys.map(\.id)).count == keys.count else { return nil }
        self.keys = keys
    }

    /// The key that encrypts: the last one.
    public var current: EncryptionKey { keys[keys.count - 1] }

    /// The key named `id`, if the ring holds it.
    public func key(id: String) -> EncryptionKey? {
        keys.last { $0.id == id }
    }

    /// A ring of one new random key (tests and in-memory stores).
    public static func generate(now: Date = Date()) -> EncryptionKeyRing {
        EncryptionKeyRing([EncryptionKey.generate(now: now)])!
    }
}
