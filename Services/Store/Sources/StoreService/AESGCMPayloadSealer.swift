import Crypto
import Foundation
import ServiceCore
import Synchronization

/// Encrypts payloads at rest with AES-256-GCM under the store's newest key.
///
/// Stored bytes are `nonce (12) ‖ ciphertext ‖ tag (16)` with a random nonce per row; the scheme is
/// `aes256gcm:<key id>` and the notification id is the additional authenticated data, so a copy moved to another
/// row, a flipped byte or a missing key is an error, never garbage. Rows written before encryption at rest
/// (`identity`) still open. Meeting a key id it does not hold, it re-reads its key source (at most once a second),
/// so rows re-encrypted by `securepush store-keys rotate` open on replicas that started before the rotation.
public final class AESGCMPayloadSealer: PayloadSealer {
    /// The scheme prefix; the key id follows.
    public static let schemePrefix = "aes256gcm:"
    /// Shortest time between two reloads of the key source.
    static let reloadInterval: TimeInterval = 1

    private struct State {
        var ring: EncryptionKeyRing
        var lastReload: Date?
    }

    private let state: Mutex<State>
    private let reload: (@Sendable () throws -> EncryptionKeyRing)?
    private let now: @Sendable () -> Date

    /// - Parameters:
    ///   - ring: the keys; the last encrypts.
    ///   - reload: reads the keys again (from the key file), when a row names a key the ring lacks.
    ///   - now: the clock that spaces reloads.
    public init(
        ring: EncryptionKeyRing, reload: (@Sendable () throws -> EncryptionKeyRing)? = nil,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.state = Mutex(State(ring: ring))
        self.reload = reload
        self.now = now
    }

    /// The keys in use now.
    public var ring: EncryptionKeyRing { state.withLock { $0.ring } }

    public var scheme: String { Self.scheme(for: ring.current) }

    /// The scheme of rows encrypted under `key`.
    public static func scheme(for key: EncryptionKey) -> String { schemePrefix + key.id }

    public func seal(_ payload: Data, notificationID: String) throws -> SealedPayload {
        let key = ring.current
        let box = try AES.GCM.seal(payload, using: key.key, authenticating: Array(notificationID.utf8))
        // `combined` is non-nil for the default 12-byte nonce.
        return SealedPayload(bytes: box.combined!, scheme: Self.scheme(for: key))
    }

    public func open(_ sealed: Data, scheme: String, notificationID: String) throws -> Data {
        if scheme == IdentityPayloadSealer().scheme { return sealed }
        guard scheme.hasPrefix(Self.schemePrefix) else {
            throw PayloadSealerError.unknownScheme(scheme, notificationID: notificationID)
        }
        let keyID = String(scheme.dropFirst(Self.schemePrefix.count))
        guard let key = try key(id: keyID) else {
            throw PayloadSealerError.missingKey(keyID, notificationID: notificationID)
        }
        do {
            let box = try AES.GCM.SealedBox(combined: sealed)
            return try AES.GCM.open(box, using: key.key, authenticating: Array(notificationID.utf8))
        } catch {
            throw PayloadSealerError.authenticationFailed(keyID: keyID, notificationID: notificationID)
        }
    }

    /// Every row is bound to its notification id: sealing without one is a programming error.
    public func seal(_ payload: Data) throws -> Data {
        throw PayloadSealerError.notificationIDRequired
    }

    /// Every row is bound to its notification id: opening without one is a programming error.
    public func open(_ sealed: Data, scheme: String) throws -> Data {
        throw PayloadSealerError.notificationIDRequired
    }

    /// The key named `id`, re-reading the key source once when the ring lacks it.
    private func key(id: String) throws -> EncryptionKey? {
        if let key = ring.key(id: id) { return key }
        guard let reload else { return nil }
        let shouldReload = state.withLock { state in
            let now = self.now()
            if let last = state.lastReload, now.timeIntervalSince(last) < Self.reloadInterval { return false }
            state.lastReload = now
            return true
        }
        guard shouldReload else { return nil }
        // A file that is unreadable or half-edited keeps the keys already loaded.
        guard let fresh = try? reload() else { return nil }
        state.withLock { $0.ring = fresh }
        return fresh.key(id: id)
    }
}
