import Foundation
import Logging
import ServiceCore
import SharedModels

/// `devices.eraseUser`: push-dispatch's part of erasing a person. Deletes their rows (``SQLDispatchErasure``), ends
/// their devices' event streams, forgets them as a recipient here (and, on PostgreSQL, on every other replica when the
/// erasure commits), scrubs the erased bytes from SQLite's files and records the erasure.
struct DispatchUserEraser: Sendable {
    let erasure: SQLDispatchErasure
    let hub: DirectHub
    let recipients: RecipientDirectory
    let audit: AuditTrail?
    let logger: Logger

    func eraseUser(_ userID: String) async throws -> Devices.EraseUser.Result {
        guard !userID.isEmpty, userID.utf8.count <= TextLimit.recipientID.bytes.upperBound else {
            throw DispatchError.invalidField("userId", "must be 1 to \(TextLimit.recipientID.bytes.upperBound) bytes")
        }
        let (erased, deviceIDs) = try await erasure.eraseUser(userID)
        await forget(userID)
        for deviceID in deviceIDs { _ = await hub.close(deviceID: deviceID) }
        do {
            try await erasure.database.purgeErasedBytes()
        } catch {
            logger.warning("dispatch.erasure.purge_failed", metadata: ["error": "\(error)"])
        }
        audit?.record("devices.user.erased", .erasure(of: userID, removed: erased))
        logger.notice("dispatch.user.erased", metadata: erased.mapValues { "\($0)" })
        return Devices.EraseUser.Result(erased: erased, deviceIds: deviceIDs)
    }

    /// Forgets `userID` as a recipient and their audit key on this replica.
    func forget(_ userID: String) async {
        await recipients.forget(userID)
        audit?.forget(userID)
    }

    /// Forgets the user another replica erased, named by ``SQLDispatchErasure/recipientDigest(_:)``.
    func forget(digest: String) async {
        let matches: @Sendable (String) -> Bool = { SQLDispatchErasure.recipientDigest($0) == digest }
        await recipients.forget(where: matches)
        audit?.forget(where: matches)
    }
}
