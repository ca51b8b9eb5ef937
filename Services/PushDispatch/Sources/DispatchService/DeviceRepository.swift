import Foundation
import SharedModels

/// Where devices are kept. The SQLite implementation is `SQLiteDeviceRepository`; another database only needs this.
public protocol DeviceRepository: Sendable {
    /// Registers a device, or — when `token` is not `nil` and `(platform, token)` is already registered — updates
    /// that device (owner, name when given, APNs mode as given, last registration, active again) and returns it.
    /// Never duplicates. When the device changes hands, its undelivered jobs for the previous owner end `failed`.
    /// `apnsMode` is already validated; `nil` means the deployment's mode.
    func register(
        ownerID: String, platform: Platform, token: String?, name: String?, apnsMode: String?, now: Date
    ) async throws -> DeviceRecord

    /// The owner's devices, oldest first.
    func devices(ownerID: String) async throws -> [DeviceRecord]

    /// The device with this id, whoever owns it.
    func device(id: String) async throws -> DeviceRecord?

    /// Deletes the owner's device and ends its undelivered jobs `failed`; `false` when there is no such device.
    func unregister(id: String, ownerID: String, now: Date) async throws -> Bool
}

extension DeviceRepository {
    /// Registers a device that uses the deployment's APNs mode.
    public func register(ownerID: String, platform: Platform, token: String?, name: String?, now: Date) async throws
        -> DeviceRecord
    {
        try await register(ownerID: ownerID, platform: platform, token: token, name: name, apnsMode: nil, now: now)
    }
}
