import Foundation
import SharedModels

/// Where devices are kept. The SQLite implementation is `SQLiteDeviceRepository`; another database only needs this.
public protocol DeviceRepository: Sendable {
    /// Registers a device, or — when `token` is not `nil` and `(platform, token)` is already registered — updates
    /// that device (owner, name when given, last registration, active again) and returns it. Never duplicates.
    /// When the device changes hands, its undelivered jobs for the previous owner end `failed`.
    func register(ownerID: String, platform: Platform, token: String?, name: String?, now: Date) async throws
        -> DeviceRecord

    /// The owner's devices, oldest first.
    func devices(ownerID: String) async throws -> [DeviceRecord]

    /// The device with this id, whoever owns it.
    func device(id: String) async throws -> DeviceRecord?

    /// Deletes the owner's device and ends its undelivered jobs `failed`; `false` when there is no such device.
    func unregister(id: String, ownerID: String, now: Date) async throws -> Bool
}
