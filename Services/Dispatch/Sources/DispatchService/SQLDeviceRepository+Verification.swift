import Foundation
import ServiceCore
import SharedModels

/// What a `devices.register` asked for, as validated: kept by a pending device until it is verified.
struct DeviceRegistrationRequest: Sendable {
    var ownerID: String
    var platform: Platform
    var token: String?
    var name: String?
    var apnsMode: String?
    var publicKey: String?
    var appID: String
}

/// Pending devices (``DeviceVerification``): an APNs, FCM or WNS token registered by someone other than its device's
/// owner is kept in `device_verification` until its challenge is answered, and only then replaces the device.
extension SQLDeviceRepository {
    /// The pending device columns, in ``pendingDevice(from:)``'s order.
    static let pendingColumns =
        "device_id, owner_id, platform, token, name, created_at, apns_mode, public_key, challenge_digest, failed_tries, "
        + "challenge_sent_at, expires_at, app_id"

    /// Registers (or registers again) the caller's pending device for a token another user's device holds, in the
    /// registration's transaction (which holds the token's lock). A challenge is pushed when the token's push slot is
    /// free (``claimChallengePush(_:_:nowMS:_:)``): then a fresh one replaces the last. Tries and the window are not
    /// reset by registering again.
    static func pend(
        _ request: DeviceRegistrationRequest, maxDevices: Int?, nowMS: Int64, _ db: any SQLTransaction
    ) async throws -> DeviceRegistration? {
        // Only a platform token that another user's device holds is pended, so there is always one.
        guard let token = request.token else { preconditionFailure("a pending registration without a token") }
        if let row = try await db.query(
            """
            SELECT \(pendingColumns) FROM device_verification
            WHERE app_id = ? AND platform = ? AND token = ? AND owner_id = ?
            \(db.dialect.lockRows)
            """, [request.appID, request.platform.rawValue, token, request.ownerID]
        ).first {
            let pending = try pendingDevice(from: row)
            if pending.expiresAtMS > nowMS {
                // The latest registration says what the device will be; a fresh challenge when one may be pushed.
                var challenge: String?
                var sentAtMS = pending.challengeSentAtMS
                var digest = pending.challengeDigest
                if try await claimChallengePush(request.platform, token, nowMS: nowMS, db) {
                    let fresh = DeviceVerification.makeChallenge()
                    challenge = fresh
                    digest = DeviceVerification.digest(fresh)
                    sentAtMS = nowMS
                }
                _ = try await db.execute(
                    """
                    UPDATE device_verification SET name = ?, apns_mode = ?, public_key = ?, challenge_digest = ?,
                        challenge_sent_at = ?
                    WHERE device_id = ?
                    """,
                    [request.name, request.apnsMode, request.publicKey, digest, sentAtMS, pending.device.id])
                var device = pending.device
                device.name = request.name
                device.apnsMode = request.apnsMode
                device.publicKey = request.publicKey
                return DeviceRegistration(device: device, challenge: challenge)
            }
            _ = try await db.execute("DELETE FROM device_verification WHERE device_id = ?", [pending.device.id])
        }
        try await checkQuota(maxDevices, ownerID: request.ownerID, appID: request.appID, nowMS: nowMS, db)
        let challenge = DeviceVerification.makeChallenge()
        let pushed = try await claimChallengePush(request.platform, token, nowMS: nowMS, db)
        let windowMS = Int64(DeviceVerification.window.components.seconds * 1000)
        let device = DeviceRecord(
            id: UUID.random().uuidString.lowercased(), ownerID: request.ownerID, platform: request.platform,
            token: token, name: request.name, createdAt: Date(millisecondsSince1970: nowMS),
            lastRegisteredAt: Date(millisecondsSince1970: nowMS), isActive: false, apnsMode: request.apnsMode,
            publicKey: request.publicKey, isPendingVerification: true, appID: request.appID)
        // Under the token's lock the same user cannot insert this token twice; the unique index stays the last word.
        let inserted = try await db.execute(
            """
            INSERT INTO device_verification (
                device_id, owner_id, platform, token, name, apns_mode, public_key, challenge_digest, failed_tries,
                created_at, challenge_sent_at, expires_at, app_id)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?)
            ON CONFLICT DO NOTHING
            """,
            [
                device.id, request.ownerID, request.platform.rawValue, token, request.name, request.apnsMode,
                request.publicKey, DeviceVerification.digest(challenge), nowMS, pushed ? nowMS : 0,
                nowMS + windowMS, request.appID,
            ])
        return inserted > 0 ? DeviceRegistration(device: device, challenge: pushed ? challenge : nil) : nil
    }

    /// Takes the token's challenge push slot: `true` (the slot is then taken for
    /// ``DeviceVerification/resendInterval``) when no challenge was pushed to the token within that interval, by
    /// anyone. Run under the token's lock.
    static func claimChallengePush(
        _ platform: Platform, _ token: String, nowMS: Int64, _ db: any SQLTransaction
    ) async throws -> Bool {
        let intervalMS = Int64(DeviceVerification.resendInterval.components.seconds * 1000)
        if let last = try await db.query(
            "SELECT pushed_at FROM device_challenge_push WHERE platform = ? AND token = ?", [platform.rawValue, token]
        ).first?.decode(0, as: Int64.self), nowMS - last < intervalMS {
            return false
        }
        _ = try await db.execute(
            """
            INSERT INTO device_challenge_push (platform, token, pushed_at) VALUES (?, ?, ?)
            ON CONFLICT (platform, token) DO UPDATE SET pushed_at = excluded.pushed_at
            """, [platform.rawValue, token, nowMS])
        return true
    }

    public func pendingDevices(ownerID: String, now: Date) async throws -> [DeviceRecord] {
        try await database.read(
            """
            SELECT \(Self.pendingColumns) FROM device_verification WHERE owner_id = ? AND expires_at > ?
            ORDER BY created_at, device_id
            """, [ownerID, now.millisecondsSince1970]
        ).map { try Self.pendingDevice(from: $0).device }
    }

    public func verify(id: String, ownerID: String, challenge: String, maxDevices: Int?, now: Date) async throws
        -> DeviceVerificationOutcome
    {
        for _ in 0..<Self.attempts {
            do {
                return try await verifyOnce(
                    id: id, ownerID: ownerID, challenge: challenge, maxDevices: maxDevices,
                    nowMS: now.millisecondsSince1970)
            } catch is TokenRaceLost {
                continue
            }
        }
        throw DispatchError.dependencyUnavailable("database", "the device token kept changing during verification")
    }

    /// Thrown inside a verification transaction to roll it back when another transaction inserted the token first.
    private struct TokenRaceLost: Error {}

    /// One verification transaction. It takes the locks in a registration's order (the owner's when a quota is set,
    /// then the token's, then rows: pending, then the token's device), so a registration and a verification of one
    /// token never wait on each other in a cycle; two users verifying one token at once are serialised, and each
    /// outcome is all or nothing.
    private func verifyOnce(id: String, ownerID: String, challenge: String, maxDevices: Int?, nowMS: Int64)
        async throws -> DeviceVerificationOutcome
    {
        try await database.transaction { db in
            // Which token, read without a lock: the locks come first, then the row is read again under them.
            guard
                let peek = try await db.query(
                    "SELECT \(Self.pendingColumns) FROM device_verification WHERE device_id = ?", [id]
                ).first.map(Self.pendingDevice(from:)),
                peek.device.ownerID == ownerID, let token = peek.device.token
            else { return .notFound }
            if maxDevices != nil { try await db.lock("dispatch.device.owner:" + ownerID) }
            try await db.lock(DeviceVerification.tokenLock(peek.device.platform, token))
            guard
                let row = try await db.query(
                    "SELECT \(Self.pendingColumns) FROM device_verification WHERE device_id = ? \(db.dialect.lockRows)",
                    [id]
                ).first
            else { return .notFound }
            let pending = try Self.pendingDevice(from: row)
            guard pending.device.ownerID == ownerID else { return .notFound }
            guard pending.expiresAtMS > nowMS else {
                _ = try await db.execute("DELETE FROM device_verification WHERE device_id = ?", [id])
                return .expired
            }
            guard DeviceVerification.matches(challenge, digest: pending.challengeDigest) else {
                let failed = pending.failedTries + 1
                if failed >= DeviceVerification.maxTries {
                    _ = try await db.execute("DELETE FROM device_verification WHERE device_id = ?", [id])
                    return .triesExhausted
                }
                _ = try await db.execute(
                    "UPDATE device_verification SET failed_tries = ? WHERE device_id = ?", [failed, id])
                return .wrongChallenge(triesLeft: DeviceVerification.maxTries - failed)
            }
            // The caller may have registered other devices since (this one stopped counting if it expired): the move
            // must still fit. Nothing changed yet, no try used.
            try await Self.checkQuota(
                maxDevices, ownerID: ownerID, appID: pending.device.appID, nowMS: nowMS, excluding: id, db)
            _ = try await db.execute("DELETE FROM device_verification WHERE device_id = ?", [id])
            var device = pending.device
            var previousOwnerID: String?
            var replacedDeviceID: String?
            if let existingRow = try await db.query(
                """
                SELECT \(Self.columns) FROM device
                WHERE app_id = ? AND platform = ? AND token = ? AND platform <> 'direct'
                \(db.dialect.lockRows)
                """, [device.appID, device.platform.rawValue, device.token]
            ).first {
                let existing = try Self.device(from: existingRow)
                // Moved to the caller meanwhile (another of their verifications won): nothing left to move.
                if existing.ownerID == ownerID { return .verified(DeviceRegistration(device: existing)) }
                _ = try await db.execute("DELETE FROM device WHERE id = ?", [existing.id])
                try await Self.failUnfinishedJobs(
                    of: existing.id, reason: "device verified by another user", nowMS, db)
                // The store deletes what was sealed to the previous owner's device and refuses its proofs.
                try await DeviceRevocationOutbox.enqueue(existing.id, now: Date(millisecondsSince1970: nowMS), db)
                previousOwnerID = existing.ownerID
                replacedDeviceID = existing.id
            }
            device.isActive = true
            device.isPendingVerification = false
            device.lastRegisteredAt = Date(millisecondsSince1970: nowMS)
            let inserted = try await db.execute(
                """
                INSERT INTO device (
                    id, owner_id, platform, token, name, created_at, last_registered_at, active, apns_mode, public_key,
                    app_id)
                VALUES (?, ?, ?, ?, ?, ?, ?, TRUE, ?, ?, ?)
                ON CONFLICT DO NOTHING
                """,
                [
                    device.id, ownerID, device.platform.rawValue, device.token, device.name,
                    device.createdAt.millisecondsSince1970, nowMS, device.apnsMode, device.publicKey, device.appID,
                ])
            // Another transaction registered the token since the SELECT above: roll back and look again.
            guard inserted > 0 else { throw TokenRaceLost() }
            return .verified(
                DeviceRegistration(device: device, previousOwnerID: previousOwnerID, replacedDeviceID: replacedDeviceID)
            )
        }
    }

    /// A pending device row and its verification state.
    struct PendingDevice {
        var device: DeviceRecord
        var challengeDigest: String
        var failedTries: Int
        var challengeSentAtMS: Int64
        var expiresAtMS: Int64
    }

    /// Decodes a row selected with ``pendingColumns``.
    static func pendingDevice(from row: SQLRow) throws -> PendingDevice {
        let createdAt = Date(millisecondsSince1970: try row.decode(5))
        return PendingDevice(
            device: DeviceRecord(
                id: try row.decode(0), ownerID: try row.decode(1), platform: Platform(rawValue: try row.decode(2)),
                token: try row.decode(3), name: try row.decode(4), createdAt: createdAt, lastRegisteredAt: createdAt,
                isActive: false, apnsMode: try row.decode(6), publicKey: try row.decode(7), isPendingVerification: true,
                appID: try row.decode(12)),
            challengeDigest: try row.decode(8), failedTries: try row.decode(9), challengeSentAtMS: try row.decode(10),
            expiresAtMS: try row.decode(11))
    }
}
