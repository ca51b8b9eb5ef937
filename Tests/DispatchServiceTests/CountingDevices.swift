import DispatchService
import Foundation
import SharedModels
import Synchronization

/// A `DeviceRepository` that counts the calls made to it and forwards everything to the real one.
final class CountingDevices: DeviceRepository {
    private let base: any DeviceRepository
    private let callCount = Mutex(0)

    init(_ base: any DeviceRepository) {
        self.base = base
    }

    /// How many calls of any kind were made.
    var calls: Int { callCount.withLock { $0 } }

    private func counted() {
        callCount.withLock { $0 += 1 }
    }

    func register(
        ownerID: String, platform: Platform, token: String?, name: String?, apnsMode: String?, publicKey: String?,
        appID: String, maxDevices: Int?, now: Date
    ) async throws -> DeviceRegistration {
        counted()
        return try await base.register(
            ownerID: ownerID, platform: platform, token: token, name: name, apnsMode: apnsMode, publicKey: publicKey,
            appID: appID, maxDevices: maxDevices, now: now)
    }

    func devices(ownerID: String) async throws -> [DeviceRecord] {
        counted()
        return try await base.devices(ownerID: ownerID)
    }

    func activeDevices(ownerIDs: [String], appID: String) async throws -> [DeviceRecord] {
        counted()
        return try await base.activeDevices(ownerIDs: ownerIDs, appID: appID)
    }

    func device(id: String) async throws -> DeviceRecord? {
        counted()
        return try await base.device(id: id)
    }

    func devices(ids: [String]) async throws -> [DeviceRecord] {
        counted()
        return try await base.devices(ids: ids)
    }

    func unregister(id: String, ownerID: String, now: Date) async throws -> Bool {
        counted()
        return try await base.unregister(id: id, ownerID: ownerID, now: now)
    }

    func pendingDevices(ownerID: String, now: Date) async throws -> [DeviceRecord] {
        counted()
        return try await base.pendingDevices(ownerID: ownerID, now: now)
    }

    func verify(
        id: String, ownerID: String, challenge: String, maxDevices: Int?, now: Date
    ) async throws -> DeviceVerificationOutcome {
        counted()
        return try await base.verify(id: id, ownerID: ownerID, challenge: challenge, maxDevices: maxDevices, now: now)
    }
}
