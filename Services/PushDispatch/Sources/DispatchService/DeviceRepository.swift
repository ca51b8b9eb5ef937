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
    func register(
        ownerID: String, platform: Platform, token: String?, name: String?, apnsMode: String?, publicKey: String?,
        maxDevices: Int?, now: Date
    ) async throws -> DeviceRegistration

    /// The owner's devices, oldest first.
    func devices(ownerID: String) async throws -> [DeviceRecord]

    /// The device with this id, whoever owns it.
    func device(id: String) async throws -> DeviceRecord?
    /// The devices among `ids` that exist, in no particular order (one query for the direct channel's batch drain).
    func devices(ids: [String]) async throws -> [DeviceRecord]

    /// Deletes the owner's device and ends its undelivered jobs `failed`; `false` when there is no such device.
    func unregister(id: String, ownerID: String, now: Date) async throws -> Bool
}

extension DeviceRepository {
    /// Registers a device with no device quota (by default with the deployment's APNs mode); returns it.
    public func register(
        ownerID: String, platform: Platform, token: String?, name: String?, apnsMode: String? = nil, now: Date
    ) async throws -> DeviceRecord {
        try await register(
            ownerID: ownerID, platform: platform, token: token, name: name, apnsMode: apnsMode, publicKey: nil,
            maxDevices: nil, now: now
        ).device
    }

    /// Registers a device as before this repository knew device keys (an unsealed device).
    public func register(
        ownerID: String, platform: Platform, token: String?, name: String?, apnsMode: String?, maxDevices: Int?,
        now: Date
    ) async throws -> DeviceRegistration {
        try await register(
            ownerID: ownerID, platform: platform, token: token, name: name, apnsMode: apnsMode, publicKey: nil,
            maxDevices: maxDevices, now: now)
    }
}

/// What `DeviceRepository.register` did.
public struct DeviceRegistration: Sendable, Hashable {
    /// The device as now stored.
    public var device: DeviceRecord
    /// The user the device belonged to before, when the registration moved it from another user.
    public var previousOwnerID: String?

    public init(device: DeviceRecord, previousOwnerID: String? = nil) {
        self.device = device
        self.previousOwnerID = previousOwnerID
    }
}
