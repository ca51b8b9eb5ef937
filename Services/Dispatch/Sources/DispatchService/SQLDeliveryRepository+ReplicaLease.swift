import Foundation
import ServiceCore

extension SQLDeliveryRepository {
    /// Extends this replica's lease (its `dispatch_replica` row) to `leaseUntil`, and deletes the rows of replicas
    /// whose lease lapsed before `forgetBefore` (by then every reservation they held has timed out anyway).
    public func renewReplicaLease(until leaseUntil: Date, forgetBefore: Date) async throws {
        _ = try await database.execute(
            """
            INSERT INTO dispatch_replica (id, lease_until) VALUES (?, ?)
            ON CONFLICT (id) DO UPDATE SET lease_until = excluded.lease_until
            """, [replicaID, leaseUntil.millisecondsSince1970])
        _ = try await database.execute(
            "DELETE FROM dispatch_replica WHERE lease_until < ?", [forgetBefore.millisecondsSince1970])
    }
}
