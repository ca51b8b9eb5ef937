import Foundation
import ServiceCore
import SharedModels

extension SQLDeliveryRepository {
    public func devicesWithQueuedJobs(among deviceIDs: [String], now: Date) async throws -> Set<String> {
        guard !deviceIDs.isEmpty else { return [] }
        let ids = String(decoding: try JSONEncoder().encode(deviceIDs), as: UTF8.self)
        // One probe of the unfinished-jobs index per connected device, whatever the offline backlog.
        return Set(
            try await database.read(
                """
                SELECT DISTINCT device_id FROM delivery
                WHERE device_id IN (\(database.dialect.jsonTextArray)) AND status IN \(Self.unfinished)
                    AND status = 'queued' AND expires_at > ?
                """, [ids, now.millisecondsSince1970]
            ).map { try $0.decode(0, as: String.self) })
    }

    public func queueStatistics(now: Date) async throws -> [Platform: DeliveryQueueStatistics] {
        var statistics: [Platform: DeliveryQueueStatistics] = [:]
        for row in try await database.read(
            """
            SELECT delivery.platform, COUNT(*), MIN(push_send.created_at) FROM delivery
            JOIN push_send ON push_send.notification_id = delivery.notification_id
            WHERE delivery.status IN ('queued', 'retrying') AND delivery.expires_at > ?
            GROUP BY delivery.platform
            """, [now.millisecondsSince1970])
        {
            statistics[Platform(rawValue: try row.decode(0))] = DeliveryQueueStatistics(
                depth: try row.decode(1), oldestSentAt: Date(millisecondsSince1970: try row.decode(2)))
        }
        return statistics
    }
}
