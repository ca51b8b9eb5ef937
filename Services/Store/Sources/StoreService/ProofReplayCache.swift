import Foundation
import ServiceCore

/// What the replay cache made of one device proof.
public enum ProofUse: Sendable, Hashable {
    /// Not seen before: recorded, the proof is accepted.
    case first
    /// Seen before (a replay): refused.
    case replayed
    /// The device already had `limit` proofs accepted within the quota window: refused for this device only, until its
    /// oldest one is forgotten, `retryAfterSeconds` from now.
    case deviceQuotaExceeded(limit: Int, retryAfterSeconds: Int)
}

/// Remembers the `jti` of every device proof accepted within the proof window, so each proof is accepted once, and
/// bounds how many one device may have accepted at a time, so that no device can fill the cache for the others.
public protocol ProofReplayCache: Sendable {
    /// Records `jti` for `deviceID` until `expiresAt`, unless it was recorded before (``ProofUse/replayed``) or the
    /// device already has its bound of live proofs (``ProofUse/deviceQuotaExceeded(limit:retryAfterSeconds:)``).
    func firstUse(of jti: String, deviceID: String, expiresAt: Date, now: Date) async throws -> ProofUse

    /// Whether accepted proofs are still known after the process restarts (a database table: yes; memory: no).
    var remembersAcrossRestarts: Bool { get }
}

/// The replay cache of a single store process (SQLite deployments): in memory, per device, each device bounded.
///
/// There is no global capacity: every device may keep `perDevice` live proofs, and a device within its bound is never
/// refused because of others. Memory follows the proofs accepted within the quota window (each needs a valid signature
/// by a device key that the store holds a sealed copy for, so at most `perDevice` per such device); a device whose
/// proofs all expired is dropped. After a restart the cache is empty: the store refuses proofs made
/// before it started instead (``NotificationStore``), so nothing seen before the restart can replay.
public actor InMemoryProofReplayCache: ProofReplayCache {
    private var seen: [String: [String: Date]] = [:]
    private let perDevice: Int
    private var callsSincePrune = 0
    public nonisolated let remembersAcrossRestarts = false

    /// - Parameter perDevice: most live proofs one device may have accepted (`SECUREPUSH_PROOFS_PER_DEVICE`).
    public init(perDevice: Int = 120) {
        self.perDevice = max(1, perDevice)
    }

    public func firstUse(of jti: String, deviceID: String, expiresAt: Date, now: Date) -> ProofUse {
        pruneNowAndThen(now: now)
        var entries = seen[deviceID] ?? [:]
        if let until = entries[jti], until > now { return .replayed }
        if entries.count >= perDevice { entries = entries.filter { $0.value > now } }
        guard entries.count < perDevice else {
            seen[deviceID] = entries
            let oldest = entries.values.min() ?? now
            return .deviceQuotaExceeded(limit: perDevice, retryAfterSeconds: Self.seconds(until: oldest, from: now))
        }
        entries[jti] = expiresAt
        seen[deviceID] = entries
        return .first
    }

    /// Every 1,024 calls, forgets expired proofs and the devices left with none.
    private func pruneNowAndThen(now: Date) {
        callsSincePrune += 1
        guard callsSincePrune >= 1_024 else { return }
        callsSincePrune = 0
        seen = seen.compactMapValues { entries in
            let live = entries.filter { $0.value > now }
            return live.isEmpty ? nil : live
        }
    }

    /// Whole seconds from `now` until `date` (at least 1).
    static func seconds(until date: Date, from now: Date) -> Int {
        max(1, Int(date.timeIntervalSince(now).rounded(.up)))
    }

    /// Devices with live proofs remembered (tests and diagnostics).
    public var deviceCount: Int { seen.count }
}

/// The replay cache on the store's database (PostgreSQL deployments): one table every replica shares, so a proof
/// accepted by one replica is refused by every other, and a device's bound counts its proofs on all replicas. On
/// PostgreSQL a transaction-scoped advisory lock on the device id makes the count and the insert one step, so
/// concurrent fetches of one device cannot pass the bound together.
public struct SQLProofReplayCache: ProofReplayCache {
    private let database: any SQLDatabase
    private let perDevice: Int
    public let remembersAcrossRestarts = true
    /// The first key of the advisory locks on device ids (the second is the id's `hashtext`).
    static let lockClass = 24_024

    /// - Parameter perDevice: most live proofs one device may have accepted (`SECUREPUSH_PROOFS_PER_DEVICE`).
    public init(database: any SQLDatabase, perDevice: Int = 120) {
        self.database = database
        self.perDevice = max(1, perDevice)
    }

    public func firstUse(of jti: String, deviceID: String, expiresAt: Date, now: Date) async throws -> ProofUse {
        let nowMS = now.millisecondsSince1970
        let limit = perDevice
        return try await database.transaction { db in
            if db.dialect == .postgresql {
                // One device's proofs are counted and recorded one at a time (SQLite has one writer anyway).
                _ = try await db.query(
                    "SELECT 1 FROM (SELECT pg_advisory_xact_lock(\(Self.lockClass), hashtext(?))) AS locked", [deviceID]
                )
            }
            // An entry past its time is dead: taking it over is not a replay of a live proof.
            _ = try await db.execute("DELETE FROM proof_jti WHERE jti = ? AND expires_at <= ?", [jti, nowMS])
            if try await !db.query("SELECT 1 FROM proof_jti WHERE jti = ?", [jti]).isEmpty { return .replayed }
            let live = try await db.query(
                "SELECT COUNT(*), MIN(expires_at) FROM proof_jti WHERE device_id = ? AND expires_at > ?",
                [deviceID, nowMS]
            ).first
            let count = try live?.decode(0, as: Int64.self) ?? 0
            guard count < Int64(limit) else {
                let oldest = try live?.decode(1, as: Int64?.self) ?? nowMS
                return .deviceQuotaExceeded(
                    limit: limit,
                    retryAfterSeconds: InMemoryProofReplayCache.seconds(
                        until: Date(millisecondsSince1970: oldest), from: now))
            }
            let inserted = try await db.execute(
                "INSERT INTO proof_jti (jti, expires_at, device_id) VALUES (?, ?, ?) ON CONFLICT (jti) DO NOTHING",
                [jti, expiresAt.millisecondsSince1970, deviceID])
            return inserted == 1 ? .first : .replayed
        }
    }
}
