import HummingbirdBcrypt
import NIOPosix
import ServiceCore

/// Hashes and verifies passwords and client secrets with bcrypt, off the event loops.
///
/// bcrypt blocks for ~60–250 ms, so every call runs on a thread pool. Verifying against a missing hash
/// still spends the same time on a dummy hash, so an unknown name cannot be told apart by timing.
public struct PasswordHasher: Sendable {
    /// The bcrypt cost (log2 of the rounds) new hashes get.
    public let cost: Int
    private let threadPool: NIOThreadPool
    private let dummyHash: String

    /// Creates a hasher; computes the dummy hash once, which takes one bcrypt round trip.
    /// Throws `ConfigurationError` for a cost bcrypt cannot use (outside 4...31).
    public init(cost: Int, threadPool: NIOThreadPool = .singleton) async throws {
        guard (4...31).contains(cost) else {
            throw ConfigurationError("SECUREPUSH_BCRYPT_COST must be in 4...31, got \(cost)")
        }
        self.cost = cost
        self.threadPool = threadPool
        let random = OpaqueToken.generate()
        self.dummyHash = try await threadPool.runIfActive { Bcrypt.hash(random, cost: UInt8(cost)) }
    }

    /// A new bcrypt hash of `secret`.
    public func hash(_ secret: String) async throws -> String {
        let cost = UInt8(cost)
        return try await threadPool.runIfActive { Bcrypt.hash(secret, cost: cost) }
    }

    /// Whether `secret` matches `hash`; `nil` (no such account) or a secret bcrypt cannot check fully
    /// is compared with the dummy hash and gives `false` after the same amount of work.
    public func verify(_ secret: String, against hash: String?) async throws -> Bool {
        let usable = hash != nil && CredentialRules.isVerifiable(secret)
        let target = usable ? hash! : dummyHash
        let matches = try await threadPool.runIfActive { Bcrypt.verify(secret, hash: target) }
        return usable && matches
    }

    /// Whether `hash` was made with another cost than the current one (it is then replaced after a successful login).
    public func needsRehash(_ hash: String) -> Bool {
        // Modular crypt format: $2b$12$<salt+hash>
        let parts = hash.split(separator: "$", omittingEmptySubsequences: true)
        guard parts.count >= 2, let hashCost = Int(parts[1]) else { return true }
        return hashCost != cost
    }
}
