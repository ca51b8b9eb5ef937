import Foundation
import GRDB
import ServiceCore

extension SQLiteDeliveryRepository {
    public func devicesWithQueuedJobs(among deviceIDs: [String], now: Date) async throws -> Set<String> {
        guard !deviceIDs.isEmpty else { return [] }
        let ids = String(decoding: try JSONEncoder().encode(deviceIDs), as: UTF8.self)
        return try await database.read { db in
            // One probe of the unfinished-jobs index per connected device, whatever the offline backlog.
            Set(
                try String.fetchAll(
                    try db.cachedStatement(
                        sql: """
                            SELECT DISTINCT device_id FROM delivery
                            WHERE device_id IN (SELECT value FROM json_each(?)) AND status IN \(Self.unfinished)
                                AND status = 'queued' AND expires_at > ?
                            """), arguments: [ids, now.millisecondsSince1970]))
        }
    }
}
