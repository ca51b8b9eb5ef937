import Foundation
import JSONRPC

/// The audit trail's rows in a service's database: appended by ``AuditTrail``, read by ``AuditVerifier`` and the
/// export.
public struct SQLAuditRepository: Sendable {
    /// Rows per `INSERT` statement.
    static let rowsPerStatement = 100

    let database: any SQLDatabase
    /// The service whose trail this is (written into every entry and checkpoint).
    public let service: String
    /// Its tables.
    public let tables: AuditTables

    public init(database: any SQLDatabase, service: String, tables: AuditTables) {
        self.database = database
        self.service = service
        self.tables = tables
    }

    /// The trail of the service whose schema is `schema`.
    public init(database: any SQLDatabase, schema: ServiceSchema) {
        self.init(database: database, service: schema.service, tables: AuditTables(schema))
    }

    /// Appends `entries` (and `checkpoint`, when given) in one transaction.
    func append(_ entries: [AuditEntry], checkpoint: AuditCheckpoint?) async throws {
        try await database.transaction { transaction in
            try await append(entries, checkpoint: checkpoint, in: transaction)
        }
    }

    /// Appends `entries` (and `checkpoint`) in `transaction`.
    func append(_ entries: [AuditEntry], checkpoint: AuditCheckpoint?, in transaction: any SQLTransaction)
        async throws
    {
        for start in stride(from: 0, to: entries.count, by: Self.rowsPerStatement) {
            let rows = entries[start..<min(start + Self.rowsPerStatement, entries.count)]
            let values = Array(repeating: "(?, ?, ?, ?, ?, ?)", count: rows.count).joined(separator: ", ")
            var binds: [any SQLBindable] = []
            binds.reserveCapacity(rows.count * 6)
            for entry in rows {
                binds += [entry.chain, entry.sequence, entry.recordedAt, entry.type, entry.body, entry.hash]
            }
            _ = try await transaction.execute(
                "INSERT INTO \(tables.entry) (chain, sequence, recorded_at, type, body, hash) VALUES \(values)", binds)
        }
        if let checkpoint { try await insert(checkpoint, in: transaction) }
    }

    /// Records `checkpoint`.
    func insert(_ checkpoint: AuditCheckpoint) async throws {
        try await database.transaction { try await insert(checkpoint, in: $0) }
    }

    private func insert(_ checkpoint: AuditCheckpoint, in transaction: any SQLTransaction) async throws {
        _ = try await transaction.execute(
            """
            INSERT INTO \(tables.checkpoint) (chain, sequence, hash, signed_at, key_id, signature)
            VALUES (?, ?, ?, ?, ?, ?)
            """,
            [
                checkpoint.chain, checkpoint.sequence, checkpoint.hash, checkpoint.signedAt, checkpoint.keyID,
                checkpoint.signature,
            ])
    }

    /// Every chain with its first and last stored sequence numbers, in chain order.
    public func chains() async throws -> [(chain: String, first: Int64, last: Int64)] {
        try await database.read(
            "SELECT chain, MIN(sequence), MAX(sequence) FROM \(tables.entry) GROUP BY chain ORDER BY chain", []
        ).map { (try $0.decode(0), try $0.decode(1), try $0.decode(2)) }
    }

    /// Up to `limit` entries of `chain` after `sequence`, in order.
    public func entries(of chain: String, after sequence: Int64, limit: Int = 1_000) async throws -> [AuditEntry] {
        try await database.read(
            """
            SELECT sequence, recorded_at, type, body, hash FROM \(tables.entry)
            WHERE chain = ? AND sequence > ? ORDER BY sequence LIMIT ?
            """, [chain, sequence, limit]
        ).map {
            AuditEntry(
                chain: chain, sequence: try $0.decode(0), recordedAt: try $0.decode(1), type: try $0.decode(2),
                body: try $0.decode(3), hash: try $0.decode(4))
        }
    }

    /// Every checkpoint stored in the database.
    public func checkpoints() async throws -> [AuditCheckpoint] {
        try await database.read(
            "SELECT chain, sequence, hash, signed_at, key_id, signature FROM \(tables.checkpoint) ORDER BY chain, sequence",
            []
        ).map {
            AuditCheckpoint(
                service: service, chain: try $0.decode(0), sequence: try $0.decode(1), hash: try $0.decode(2),
                signedAt: try $0.decode(3), keyID: try $0.decode(4), signature: try $0.decode(5))
        }
    }

    /// Up to `limit` entries of every chain recorded at or after `since` (milliseconds), ordered by time, after the
    /// position `after` (the last row of the previous page).
    public func entries(
        since: Int64, after: (recordedAt: Int64, chain: String, sequence: Int64)?, limit: Int = 1_000
    ) async throws -> [AuditEntry] {
        let (condition, binds): (String, [any SQLBindable]) =
            if let after {
                (
                    "(recorded_at > ? OR (recorded_at = ? AND (chain > ? OR (chain = ? AND sequence > ?))))",
                    [after.recordedAt, after.recordedAt, after.chain, after.chain, after.sequence]
                )
            } else {
                ("recorded_at >= ?", [since])
            }
        return try await database.read(
            """
            SELECT chain, sequence, recorded_at, type, body, hash FROM \(tables.entry)
            WHERE \(condition) ORDER BY recorded_at, chain, sequence LIMIT ?
            """, binds + [limit]
        ).map {
            AuditEntry(
                chain: try $0.decode(0), sequence: try $0.decode(1), recordedAt: try $0.decode(2),
                type: try $0.decode(3), body: try $0.decode(4), hash: try $0.decode(5))
        }
    }
}

extension SQLAuditRepository {
    /// One chain's cut: every entry up to `throughSequence` (whose hash was `throughHash`) is gone.
    public struct Cut: Sendable, Hashable {
        public var chain: String
        public var throughSequence: Int64
        public var throughHash: String
    }

    /// In `transaction`: deletes every entry recorded before `cutoff` (and the checkpoints they cover), and returns
    /// the cut of every chain that now starts after its genesis entry (cut now or before), for the signed
    /// `audit.retention.cut` entries that let verification pass across them. A chain cut whole is named with its last
    /// entry.
    func cut(before cutoff: Int64, in transaction: any SQLTransaction) async throws -> (deleted: Int, cuts: [Cut]) {
        var cuts: [String: Cut] = [:]
        for row in try await transaction.query(
            """
            SELECT e.chain, e.sequence, e.hash FROM \(tables.entry) e
            JOIN (SELECT chain, MAX(sequence) AS last FROM \(tables.entry) WHERE recorded_at < ? GROUP BY chain) o
              ON o.chain = e.chain AND o.last = e.sequence
            """, [cutoff])
        {
            let cut = Cut(chain: try row.decode(0), throughSequence: try row.decode(1), throughHash: try row.decode(2))
            cuts[cut.chain] = cut
        }
        var deleted = 0
        for cut in cuts.values {
            deleted += try await transaction.execute(
                "DELETE FROM \(tables.entry) WHERE chain = ? AND sequence <= ?", [cut.chain, cut.throughSequence])
            _ = try await transaction.execute(
                "DELETE FROM \(tables.checkpoint) WHERE chain = ? AND sequence <= ?", [cut.chain, cut.throughSequence])
        }
        // Chains cut by an earlier run, named again so the newest cut entries always describe every cut.
        for row in try await transaction.query(
            """
            SELECT e.chain, e.sequence, e.body FROM \(tables.entry) e
            JOIN (SELECT chain, MIN(sequence) AS first FROM \(tables.entry) GROUP BY chain) f
              ON f.chain = e.chain AND f.first = e.sequence
            WHERE e.sequence > 1
            """, [])
        {
            let chain: String = try row.decode(0)
            guard cuts[chain] == nil else { continue }
            let first: Int64 = try row.decode(1)
            let entry = AuditEntry(
                chain: chain, sequence: first, recordedAt: 0, type: "", body: try row.decode(2), hash: "")
            guard case .string(let previous)? = entry.parsedBody?["prev"] else { continue }
            cuts[chain] = Cut(chain: chain, throughSequence: first - 1, throughHash: previous)
        }
        return (deleted, cuts.values.sorted { $0.chain < $1.chain })
    }

    /// Every cut the trail's `audit.retention.cut` entries state (the furthest per chain), and the latest retention
    /// horizon they name (milliseconds; chains whose every entry was older are gone).
    public func statedCuts() async throws -> (cuts: [String: Cut], horizon: Int64) {
        var cuts: [String: Cut] = [:]
        var horizon: Int64 = 0
        for row in try await database.read(
            "SELECT body FROM \(tables.entry) WHERE type = ?", [AuditTrail.retentionCutType])
        {
            let body: String = try row.decode(0)
            guard case .object(let members)? = try? JSONValueParser.parse(Array(body.utf8)),
                case .object(let fields)? = members["fields"], case .string(let chain)? = fields["chain"],
                case .int(let through)? = fields["throughSequence"], case .string(let hash)? = fields["throughHash"],
                case .int(let before)? = fields["before"]
            else { continue }
            horizon = max(horizon, before)
            if (cuts[chain]?.throughSequence ?? -1) < through {
                cuts[chain] = Cut(chain: chain, throughSequence: through, throughHash: hash)
            }
        }
        return (cuts, horizon)
    }
}
