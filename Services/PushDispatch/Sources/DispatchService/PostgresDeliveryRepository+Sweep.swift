import Foundation
import PostgresNIO
import ServiceCore

extension PostgresDeliveryRepository {
    public func devicesWithQueuedJobs(among deviceIDs: [String], now: Date) async throws -> Set<String> {
        guard !deviceIDs.isEmpty else { return [] }
        let nowMS = now.millisecondsSince1970
        return try await database.withClient { client in
            let rows = try await client.query(
                """
                SELECT DISTINCT device_id FROM delivery
                WHERE device_id = ANY(\(deviceIDs)) AND status = 'queued' AND expires_at > \(nowMS)
                """, logger: logger)
            var found: Set<String> = []
            for try await deviceID in rows.decode(String.self) { found.insert(deviceID) }
            return found
        }
    }
}
