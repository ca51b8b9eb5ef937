import Foundation
import SharedModels

/// Where devices are kept. `SQLDeviceRepository` keeps them in SQLite or PostgreSQL; tests wrap or replace it.
public protocol DeviceRepository: Sendable {
    /// Registers a device, or — when `token` is not `nil` and `(platform, token)` is already registered — updates
    /// that device (owner, name when given, APNs mode as given, last registration, active again) and returns it.
    /// Never duplicates. When the device changes hands, its undelivered jobs for the previous owner end `failed`.
    /// `apnsMode` is already validated; `nil` means the deployment's mode. `publicKey` (validated) replaces the device's
    /// key; `nil` makes it an unsealed device.
    ///
    /// When `maxDevices` is set and the registration would give `ownerID` a device more than that (a new device, or
    /// one moving from another user), throws `DispatchError.quotaExceeded` and changes nothing. The count and the
    /// insert are atomic per owner, so concurrent registrations cannot overshoot; updating an own device never counts.
    ///
    /// Tokens are unique per app: the same token registered for another app is another device.
    func register(
        ownerID: String, platform: Platform, token: String?, name: String?, apnsMode: String?, publicKey: String?,
        appID: String, maxDevices: Int?, now: Date
    ) async throws -> DeviceRegistration

    /// The owner's devices, oldest first.
    func devices(ownerID: String) async throws -> [DeviceRecord]

    /// The active devices of `appID` owned by any of `ownerIDs`, oldest first, in one read (a send to many).
    func activeDevices(ownerIDs: [String], appID: String) async throws -> [DeviceRecord]

    /// The device with this id, whoever owns it.
    func device(id: String) async throws -> DeviceRecord?
    /// The devices among `ids` that exist, in no particular order (one query for the direct channel's batch drain).
    func devices(ids: [String]) async throws -> [DeviceRecord]

    /// Deletes the owner's device (or pending device) and ends its undelivered jobs `failed`; `false` when there is
    /// no such device.
    func unregister(id: String, ownerID: String, now: Date) async throws -> Bool

    /// The owner's pending devices (registrations of another user's platform token waiting for their challenge),
    /// unexpired, oldest first.
    func pendingDevices(ownerID: String, now: Date) async throws -> [DeviceRecord]

    /// Answers the challenge of the owner's pending device `id`. The right answer within the window makes it the
    /// token's device, atomically: the token's previous device is deleted (its undelivered jobs end `failed`, the
    /// store is told to revoke it) and the pending device takes its place under its own id.
    ///
    /// With `maxDevices`, a device beyond it (the caller registered others since) throws `quotaExceeded` and uses no
    /// try; the count and the move are atomic per owner, as for registrations.
    func verify(
        id: String, ownerID: String, challenge: String, maxDevices: Int?, now: Date
    ) async throws -> DeviceVerificationOutcome
}

extension DeviceRepository {
    /// Registers a device with no device quota (by default with the deployment's APNs mode); returns it.
    public func register(
        ownerID: String, platform: Platform, token: String?, name: String?, apnsMode: String? = nil, now: Date
    ) async throws -> DeviceRecord {
        try await register(
            ownerID: ownerID, platform: platform, token: token, name: name, apnsMode: apnsMode, publicKey: nil,
            appID: AppCatalog.environmentAppID, maxDevices: nil, now: now
        ).device
    }

    /// Registers a device as before this repository knew device keys (an unsealed device).
    public func register(
        ownerID: String, platform: Platform, token: String?, name: String?, apnsMode: String?, maxDevices: Int?,
        now: Date
    ) async throws -> DeviceRegistration {
        try await register(
            ownerID: ownerID, platform: platform, token: token, name: name, apnsMode: apnsMode, publicKey: nil,
            appID: AppCatalog.environmentAppID, maxDevices: maxDevices, now: now)
    }

    /// Registers a device of the environment's app (`default`).
    public func register(
        ownerID: String, platform: Platform, token: String?, name: String?, apnsMode: String?, publicKey: String?,
        maxDevices: Int?, now: Date
    ) async throws -> DeviceRegistration {
        try await register(
            ownerID: ownerID, platform: platform, token: token, name: name, apnsMode: apnsMode, publicKey: publicKey,
            appID: AppCatalog.environmentAppID, maxDevices: maxDevices, now: now)
    }
}

/// What `DeviceRepository.register` did.
public struct DeviceRegistration: Sendable, Hashable {
    /// The device as now stored.
    public var device: DeviceRecord
    /// The user the device belonged to before, when the registration moved it from another user (a Web Push
    /// subscription, or a verified platform token).
    public var previousOwnerID: String?
    /// The device the token named until now, when a verification replaced it (its streams must end).
    public var replacedDeviceID: String?
    /// A fresh challenge to push to the token, when the registration is pending (``DeviceVerification``); `nil` when
    /// none is due (the last one was pushed less than ``DeviceVerification/resendInterval`` ago).
    public var challenge: String?

    public init(
        device: DeviceRecord, previousOwnerID: String? = nil, replacedDeviceID: String? = nil, challenge: String? = nil
    ) {
        self.device = device
        self.previousOwnerID = previousOwnerID
        self.replacedDeviceID = replacedDeviceID
        self.challenge = challenge
    }
}

/// What `DeviceRepository.verify` did.
public enum DeviceVerificationOutcome: Sendable, Hashable {
    /// The pending device is now the token's device, the caller's.
    case verified(DeviceRegistration)
    /// The answer was wrong; the pending device survives this many more wrong answers.
    case wrongChallenge(triesLeft: Int)
    /// The answer was wrong for the last time: the pending device is gone.
    case triesExhausted
    /// The window closed before an answer: the pending device is gone.
    case expired
    /// No pending device with this id is the caller's.
    case notFound
}
