import Crypto
import Foundation
import JSONRPC

/// Checks one service's audit trail: every chain's entries (each body against its hash, each `prev` against the
/// entry before, the sequence numbers without a gap), every checkpoint's signature (those in the database and those
/// in the checkpoint directory), that each checkpoint names an entry with its hash, and that no chain ends before
/// its last checkpoint (a truncated tail). Stops at the first fault.
public struct AuditVerifier: Sendable {
    let repository: SQLAuditRepository
    let files: AuditCheckpointFiles?
    /// The public keys checkpoints may be signed under, by key id: the keys of every period checked (a key moved
    /// into a module, or replaced, signs the checkpoints after the change).
    let publicKeys: [String: P256.Signing.PublicKey]

    /// - Parameters:
    ///   - repository: the service's trail.
    ///   - files: the checkpoint directory; `nil` checks the database's checkpoints only.
    ///   - publicKeys: the checkpoint keys' public halves; each checkpoint must verify under the one its key id names.
    public init(repository: SQLAuditRepository, files: AuditCheckpointFiles?, publicKeys: [P256.Signing.PublicKey]) {
        self.repository = repository
        self.files = files
        self.publicKeys = Dictionary(publicKeys.map { (AuditSigningKey.keyID(of: $0), $0) }) { first, _ in first }
    }

    /// A verifier for checkpoints signed under one key.
    public init(repository: SQLAuditRepository, files: AuditCheckpointFiles?, publicKey: P256.Signing.PublicKey) {
        self.init(repository: repository, files: files, publicKeys: [publicKey])
    }

    public func verify() async throws -> AuditVerification {
        var report = AuditVerification(service: repository.service)
        func fault(_ chain: String, _ sequence: Int64, _ reason: String) -> AuditVerification {
            report.fault = .init(service: repository.service, chain: chain, sequence: sequence, reason: reason)
            return report
        }

        // Checkpoints, from both places, each checked once.
        var signed: [String: [Int64: AuditCheckpoint]] = [:]
        var outside: [AuditCheckpoint] = []
        if let files {
            let read = try files.checkpoints(of: repository.service)
            if let line = read.malformed.first { return fault("-", 0, "malformed checkpoint line at \(line)") }
            outside = read.checkpoints
        }
        let keyIDs = publicKeys.keys.sorted().joined(separator: ", ")
        for checkpoint in try await repository.checkpoints() + outside {
            if let known = signed[checkpoint.chain]?[checkpoint.sequence] {
                guard known.hash == checkpoint.hash else {
                    return fault(
                        checkpoint.chain, checkpoint.sequence,
                        "the checkpoints in the database and in the checkpoint directory disagree")
                }
                continue
            }
            guard let publicKey = publicKeys[checkpoint.keyID], checkpoint.isSigned(by: publicKey) else {
                return fault(
                    checkpoint.chain, checkpoint.sequence,
                    "checkpoint signature does not verify under key \(keyIDs) (a forged or altered checkpoint)")
            }
            signed[checkpoint.chain, default: [:]][checkpoint.sequence] = checkpoint
            report.checkpoints += 1
        }

        // Retention cuts, as the trail's own signed `audit.retention.cut` entries state them (they are checked as part
        // of their chain below).
        let (cuts, horizon) = try await repository.statedCuts()
        let chains = try await repository.chains()
        for missing in Set(signed.keys).subtracting(chains.map(\.chain)).sorted() {
            let last = signed[missing]!.values.max { $0.sequence < $1.sequence }!
            // A chain retention removed whole: cut through its last checkpoint, or signed before the cut's horizon.
            if (cuts[missing]?.throughSequence ?? 0) >= last.sequence || last.signedAt < horizon { continue }
            return fault(missing, 1, "no entries left, but checkpoints up to \(last.sequence) were signed")
        }

        for (chain, first, _) in chains {
            report.chains += 1
            let cut = cuts[chain]
            let checkpoints = (signed[chain] ?? [:]).filter { $0.key > (cut?.throughSequence ?? 0) }
            var previous: (sequence: Int64, hash: String) = (0, "")
            if first > 1 {
                guard let cut, cut.throughSequence == first - 1 else {
                    return fault(
                        chain, 1, "the chain's entries 1–\(first - 1) are missing (no retention cut names them)")
                }
                previous = (cut.throughSequence, cut.throughHash)
            }
            var after: Int64 = 0
            while true {
                let page = try await repository.entries(of: chain, after: after)
                if page.isEmpty { break }
                for entry in page {
                    let expected = previous.sequence + 1
                    guard entry.sequence == expected else {
                        return fault(chain, expected, "entry missing (the next one stored is \(entry.sequence))")
                    }
                    if let reason = Self.fault(in: entry, previousHash: previous.hash, service: repository.service) {
                        return fault(chain, entry.sequence, reason)
                    }
                    if let checkpoint = checkpoints[entry.sequence], checkpoint.hash != entry.hash {
                        return fault(chain, entry.sequence, "the entry differs from the one its checkpoint signed")
                    }
                    report.entries += 1
                    previous = (entry.sequence, entry.hash)
                }
                after = page[page.count - 1].sequence
            }
            let last = previous.sequence
            if let signedLast = checkpoints.keys.max(), signedLast > last {
                return fault(
                    chain, last + 1, "the chain ends at \(last) but a checkpoint signed entry \(signedLast) (truncated)"
                )
            }
            report.unsignedEntries += Int(last - max(checkpoints.keys.max() ?? 0, cut?.throughSequence ?? 0))
        }
        return report
    }

    /// What is wrong with `entry` alone and as the successor of the entry whose hash is `previousHash` (empty for a
    /// genesis entry), or `nil`.
    static func fault(in entry: AuditEntry, previousHash: String, service: String) -> String? {
        guard AuditEntry.hash(of: Array(entry.body.utf8)) == entry.hash else {
            return "hash does not match the entry's body (the entry was altered)"
        }
        guard let body = entry.parsedBody else { return "the entry's body is not a JSON object" }
        guard body["chain"] == .string(entry.chain), body["seq"] == .int(entry.sequence),
            body["service"] == .string(service)
        else { return "the entry's body names another place in the trail (entries moved or swapped)" }
        guard body["type"] == .string(entry.type), body["at"] == .int(entry.recordedAt) else {
            return "the entry's type or time columns differ from its body"
        }
        guard body["prev"] == .string(previousHash) else {
            return "not chained to entry \(entry.sequence - 1) (an entry before it was altered, removed or swapped)"
        }
        return nil
    }
}
