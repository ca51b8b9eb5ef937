import Foundation
import ServiceCore

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
}
