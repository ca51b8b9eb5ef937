import Foundation
import ServiceCore

/// Re-encrypts every server-readable payload under the newest store key, in batches, while the store runs:
/// the work of `securepush store-keys rotate`.
///
/// Only rows whose scheme is `identity` or `aes256gcm:<older key>` are rewritten, each with a compare-and-set on its
/// old scheme (a row deleted or rewritten meanwhile is left alone). Rows of any other scheme — copies sealed to a
/// device, which the store cannot open — are never touched.
public struct PayloadReencryption: Sendable {
    /// What a run did.
    public struct Report: Sendable, Hashable {
        /// Rows now encrypted under the newest key that were not before.
        public var reencrypted = 0
        /// Rows that could not be opened (e.g. under a key no longer in the file), by reason.
        public var failures: [String] = []
        /// Rows of a scheme this command never rewrites.
        public var skipped = 0
    }

    private let database: any SQLDatabase
    private let sealer: AESGCMPayloadSealer
    private let batchSize: Int

    /// - Parameters:
    ///   - database: the store's migrated database.
    ///   - sealer: holds the keys; its newest key encrypts.
    ///   - batchSize: rows read and rewritten per transaction.
    public init(database: any SQLDatabase, sealer: AESGCMPayloadSealer, batchSize: Int = 500) {
        self.database = database
        self.sealer = sealer
        self.batchSize = max(1, batchSize)
    }

    /// Walks the table once in id order; `progress` is called after each batch with the running totals.
    public func run(progress: (Report) -> Void = { _ in }) async throws -> Report {
        let target = sealer.scheme
        var report = Report()
        var after = ""
        while true {
            let rows = try await database.read(
                """
                SELECT id, payload, payload_scheme FROM notification
                WHERE id > ? AND payload_scheme <> ? ORDER BY id LIMIT ?
                """, [after, target, batchSize])
            guard let last = rows.last else { break }
            after = try last.decode(0)
            var updates: [(id: String, sealed: SealedPayload, oldScheme: String)] = []
            for row in rows {
                let id: String = try row.decode(0)
                let scheme: String = try row.decode(2)
                guard Self.isServerReadable(scheme) else {
                    report.skipped += 1
                    continue
                }
                do {
                    let payload = try sealer.open(try row.decode(1, as: Data.self), scheme: scheme, notificationID: id)
                    updates.append((id, try sealer.seal(payload, notificationID: id), scheme))
                } catch {
                    report.failures.append("\(error)")
                }
            }
            let batch = updates
            report.reencrypted += try await database.transaction { transaction in
                var changed = 0
                for update in batch {
                    changed += try await transaction.execute(
                        "UPDATE notification SET payload = ?, payload_scheme = ? WHERE id = ? AND payload_scheme = ?",
                        [update.sealed.bytes, update.sealed.scheme, update.id, update.oldScheme])
                }
                return changed
            }
            progress(report)
        }
        return report
    }

    /// Whether the store can open rows of `scheme` (and so must keep them under its newest key).
    static func isServerReadable(_ scheme: String) -> Bool {
        scheme == IdentityPayloadSealer().scheme || scheme.hasPrefix(AESGCMPayloadSealer.schemePrefix)
    }
}
