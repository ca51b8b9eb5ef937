import Foundation
import ServiceCore

/// Remembers the `jti` of every device proof accepted within the proof window, so each proof is accepted once.
public protocol ProofReplayCache: Sendable {
    /// Records `jti` until `expiresAt`; `false` when it was already recorded (a replay) or cannot be recorded now.
    func firstUse(of jti: String, expiresAt: Date, now: Date) async throws -> Bool
}

/// The replay cache of a single store process (SQLite deployments): in memory, pruned of expired entries, bounded.
public actor InMemoryProofReplayCache: ProofReplayCache {
    private var seen: [String: Date] = [:]
    private let capacity: Int

    /// - Parameter capacity: most proofs remembered at once; beyond it (after pruning) proofs are refused, never forgotten
    ///   early, so a replay can never slip through.
    public init(capacity: Int = 100_000) {
        self.capacity = capacity
    }

    public func firstUse(of jti: String, expiresAt: Date, now: Date) -> Bool {
        if let until = seen[jti], until > now { return false }
        if seen.count >= capacity { seen = seen.filter { $0.value > now } }
        guard seen.count < capacity else { return false }
        seen[jti] = expiresAt
        return true
    }
}

/// The replay cache on the store's database (PostgreSQL deployments): one table every replica shares.
public struct SQLProofReplayCache: ProofReplayCache {
    private let database: any SQLDatabase

    public init(database: any SQLDatabase) {
        self.database = database
    }

    public func firstUse(of jti: String, expiresAt: Date, now: Date) async throws -> Bool {
        let nowMS = now.millisecondsSince1970
        return try await database.transaction { db in
            // An entry past its time is dead: taking it over is not a replay of a live proof.
            _ = try await db.execute("DELETE FROM proof_jti WHERE jti = ? AND expires_at <= ?", [jti, nowMS])
            return try await db.execute(
                "INSERT INTO proof_jti (jti, expires_at) VALUES (?, ?) ON CONFLICT (jti) DO NOTHING",
                [jti, expiresAt.millisecondsSince1970]) == 1
        }
    }
}
