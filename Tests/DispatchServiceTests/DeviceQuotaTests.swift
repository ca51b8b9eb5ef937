import DispatchService
import Foundation
import ServiceCore
import SharedModels
import TestSupport
import Testing

@Suite("the per-user device quota (SECUREPUSH_MAX_DEVICES_PER_USER)")
struct DeviceQuotaTests {
    static func harness(maxDevicesPerUser: Int, log: RecordedLog = RecordedLog()) async throws
        -> DispatchHarness
    {
        var configuration = DispatchHarness.configuration()
        configuration.maxDevicesPerUser = maxDevicesPerUser
        return try await DispatchHarness(configuration: configuration, logger: log.logger())
    }

    static func expectQuotaError(_ error: RPCError?, limit: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(error?.code == RPCErrorCode.rateLimited, sourceLocation: sourceLocation)
        #expect(
            error?.data == .object(["quota": "devicesPerUser", "limit": .int(Int64(limit)), "appId": "default"]),
            sourceLocation: sourceLocation)
        #expect(error?.message.contains("\(limit)") == true, sourceLocation: sourceLocation)
    }

    @Test("the device beyond the quota is -32029 naming the limit; re-registering a device never counts twice")
    func quotaRefusesTheNextDevice() async throws {
        let log = RecordedLog()
        let harness = try await Self.harness(maxDevicesPerUser: 3, log: log)
        let first = try await harness.registerDevice(user: "alice", token: "install-1")
        _ = try await harness.registerDevice(user: "alice", token: "install-2")
        _ = try await harness.registerDevice(user: "alice")
        // Full, yet re-registering an own device is an update, not a device more.
        #expect(try await harness.registerDevice(user: "alice", token: "install-1", name: "renamed") == first)

        let error = await expectRPCError { _ = try await harness.registerDevice(user: "alice", token: "install-4") }
        Self.expectQuotaError(error, limit: 3)
        let listed = try await harness.client.call(
            Devices.List.self, Empty(), token: try await harness.signer.userToken("alice"))
        #expect(listed.devices.count == 3)
        let events = log.securityEvents("devices.quota_exceeded")
        #expect(events.count == 1)
        #expect(events.first?.level == .notice)
        #expect(events.first?.metadata["user.id"] == "alice")
        #expect(events.first?.metadata["quota.limit"] == "3")
        // Other users have their own quota.
        _ = try await harness.registerDevice(user: "bob")
    }

    @Test("a device moving from another user counts for its new owner, and stays put when that owner is full")
    func movingCountsForTheNewOwner() async throws {
        let harness = try await Self.harness(maxDevicesPerUser: 1)
        let bobs = try await harness.registerDevice(user: "bob", token: "shared-tablet")
        _ = try await harness.registerDevice(user: "alice", token: "alices-phone")

        let error = await expectRPCError { _ = try await harness.registerDevice(user: "alice", token: "shared-tablet") }
        Self.expectQuotaError(error, limit: 1)
        let device = try await harness.components.devices.device(id: bobs, ownerID: "bob")
        #expect(device.ownerID == "bob")
    }

    @Test("40 concurrent registrations for one user never exceed the quota")
    func concurrentRegistrationsStayWithinQuota() async throws {
        let harness = try await Self.harness(maxDevicesPerUser: 5)
        let token = try await harness.signer.userToken("alice")
        let outcomes = await withTaskGroup(of: Int?.self) { group in
            for index in 0..<40 {
                group.addTask {
                    do {
                        _ = try await harness.client.call(
                            Devices.Register.self, .init(platform: .direct, token: "install-\(index)"), token: token)
                        return 0
                    } catch let error as RPCError {
                        return error.code
                    } catch {
                        return nil
                    }
                }
            }
            return await group.reduce(into: [Int?]()) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 == 0 }.count == 5)
        #expect(outcomes.filter { $0 == RPCErrorCode.rateLimited }.count == 35)
        let listed = try await harness.client.call(Devices.List.self, Empty(), token: token)
        #expect(listed.devices.count == 5)
    }

    @Test("the quota, stream cap and sweep settings default to 20 devices, 2 streams and 10 s, and are read")
    func configuration() throws {
        let base = [
            "SECUREPUSH_DISPATCH_CLIENT_ID": "push-dispatch", "SECUREPUSH_DISPATCH_CLIENT_SECRET": "secret",
        ]
        let defaults = try DispatchConfiguration(environment: ServiceEnvironment(base))
        #expect(defaults.maxDevicesPerUser == 20)
        #expect(defaults.maxStreamsPerDevice == 2)
        #expect(defaults.sweepInterval == .seconds(10))
        let set = try DispatchConfiguration(
            environment: ServiceEnvironment(
                base.merging([
                    "SECUREPUSH_MAX_DEVICES_PER_USER": "7", "SECUREPUSH_MAX_STREAMS_PER_DEVICE": "1",
                    "SECUREPUSH_DISPATCH_SWEEP_INTERVAL": "5",
                ]) { $1 }))
        #expect(set.maxDevicesPerUser == 7)
        #expect(set.maxStreamsPerDevice == 1)
        #expect(set.sweepInterval == .seconds(5))
        #expect(throws: ConfigurationError.self) {
            try DispatchConfiguration(
                environment: ServiceEnvironment(base.merging(["SECUREPUSH_MAX_DEVICES_PER_USER": "0"]) { $1 }))
        }
    }
}
