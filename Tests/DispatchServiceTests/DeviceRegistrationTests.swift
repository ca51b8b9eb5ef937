import DispatchService
import Foundation
import SharedModels
import Testing

@Suite("devices.register, devices.list, devices.unregister")
struct DeviceRegistrationTests {
    @Test("a registered device appears in its owner's list only")
    func registerAndList() async throws {
        let harness = try await DispatchHarness()
        let phone = try await harness.registerDevice(user: "alice", name: "Alice's phone")
        let laptop = try await harness.registerDevice(user: "alice")
        _ = try await harness.registerDevice(user: "bob")

        let listed = try await harness.client.call(
            Devices.List.self, Empty(), token: try await harness.signer.userToken("alice"))
        #expect(listed.devices.map(\.deviceId) == [phone, laptop])
        #expect(listed.devices.map(\.platform) == [.direct, .direct])
        #expect(listed.devices.first?.name == "Alice's phone")
        #expect(listed.devices.last?.name == nil)
        #expect(listed.devices.allSatisfy { $0.active == true })
        #expect(Set([phone, laptop]).count == 2)
    }

    @Test("registering the same platform token again updates the device instead of adding one")
    func reRegistrationDeduplicates() async throws {
        let harness = try await DispatchHarness()
        let first = try await harness.registerDevice(user: "alice", token: "install-1", name: "old name")
        let second = try await harness.registerDevice(user: "alice", token: "install-1", name: "new name")
        let third = try await harness.registerDevice(user: "alice", token: "install-1")

        #expect(first == second)
        #expect(second == third)
        let listed = try await harness.client.call(
            Devices.List.self, Empty(), token: try await harness.signer.userToken("alice"))
        #expect(listed.devices.count == 1)
        #expect(listed.devices.first?.name == "new name")
        #expect(try await harness.count("device") == 1)
    }

    @Test("concurrent registrations of one token create one device")
    func concurrentReRegistration() async throws {
        let harness = try await DispatchHarness()
        let ids = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<8 {
                group.addTask { try await harness.registerDevice(user: "alice", token: "same-install") }
            }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(ids.count == 1)
        #expect(try await harness.count("device") == 1)
    }

    @Test("direct devices without a token are separate devices")
    func tokenlessDirectDevicesAreDistinct() async throws {
        let harness = try await DispatchHarness()
        let first = try await harness.registerDevice(user: "alice")
        let second = try await harness.registerDevice(user: "alice")
        #expect(first != second)
        #expect(try await harness.count("device") == 2)
    }

    @Test("a direct token registered by another user is another device: the first owner's device and ids stay")
    func directTokenOfAnotherUser() async throws {
        let harness = try await DispatchHarness()
        let device = try await harness.registerDevice(user: "alice", token: "shared-tablet")
        let sent = try await harness.send(to: "alice")
        #expect(try await harness.pendingIDs(device) == [sent.notificationId])

        let bobs = try await harness.registerDevice(user: "bob", token: "shared-tablet")
        #expect(bobs != device)
        #expect(try await harness.pendingIDs(device) == [sent.notificationId])
        let aliceDevices = try await harness.client.call(
            Devices.List.self, Empty(), token: try await harness.signer.userToken("alice"))
        let bobDevices = try await harness.client.call(
            Devices.List.self, Empty(), token: try await harness.signer.userToken("bob"))
        #expect(aliceDevices.devices.map(\.deviceId) == [device])
        #expect(bobDevices.devices.map(\.deviceId) == [bobs])
        #expect(try await harness.status(sent.notificationId).deliveries.first?.status == .queued)
        // Each owner re-registering their own token updates their own device.
        #expect(try await harness.registerDevice(user: "alice", token: "shared-tablet") == device)
        #expect(try await harness.registerDevice(user: "bob", token: "shared-tablet") == bobs)
        #expect(try await harness.count("device") == 2)
    }

    @Test(
        "apns, fcm, wns and webpush are refused as not configured when no provider serves them, naming platform",
        arguments: ["apns", "fcm", "wns", "webpush"])
    func unconfiguredPlatformsAreRefused(platform: String) async throws {
        let harness = try await DispatchHarness()
        let error = await expectRPCError {
            _ = try await harness.registerDevice(user: "alice", platform: Platform(rawValue: platform), token: "abc")
        }
        #expect(error?.code == RPCErrorCode.invalidParams)
        #expect(error?.data == .object(["field": "platform"]))
        #expect(error?.message.contains("'\(platform)' is not configured on this server (supported: direct)") == true)
        #expect(try await harness.count("device") == 0)
    }

    @Test("an unknown platform is refused with the list of supported ones")
    func unknownPlatformIsRefused() async throws {
        let harness = try await DispatchHarness()
        let error = await expectRPCError {
            _ = try await harness.registerDevice(user: "alice", platform: Platform(rawValue: "carrier-pigeon"))
        }
        #expect(error?.code == RPCErrorCode.invalidParams)
        #expect(error?.data == .object(["field": "platform"]))
        #expect(error?.message.contains("must be one of: direct") == true)
    }

    @Test("tokens longer than 4096 characters and names longer than 128 are refused, naming the field")
    func lengthLimits() async throws {
        let harness = try await DispatchHarness()
        _ = try await harness.registerDevice(
            user: "alice", token: String(repeating: "t", count: 4096), name: String(repeating: "n", count: 128))

        let tokenError = await expectRPCError {
            _ = try await harness.registerDevice(user: "alice", token: String(repeating: "t", count: 4097))
        }
        #expect(tokenError?.code == RPCErrorCode.invalidParams)
        #expect(tokenError?.data == .object(["field": "token"]))
        let nameError = await expectRPCError {
            _ = try await harness.registerDevice(user: "alice", name: String(repeating: "n", count: 129))
        }
        #expect(nameError?.code == RPCErrorCode.invalidParams)
        #expect(nameError?.data == .object(["field": "name"]))
        #expect(try await harness.count("device") == 1)
    }

    @Test("device methods need a user token: none is -32001, a client token is -32003")
    func deviceMethodsNeedAUser() async throws {
        let harness = try await DispatchHarness()
        let missing = await expectRPCError {
            _ = try await harness.client.call(Devices.Register.self, .init(platform: .direct))
        }
        #expect(missing?.code == RPCErrorCode.unauthenticated)
        let clientToken = try await harness.signer.senderToken()
        let forbidden = await expectRPCError {
            _ = try await harness.client.call(Devices.List.self, Empty(), token: clientToken)
        }
        #expect(forbidden?.code == RPCErrorCode.forbidden)
    }

    @Test("unregistering removes the device; someone else's device and a missing one give the same -32004")
    func unregister() async throws {
        let harness = try await DispatchHarness()
        let alices = try await harness.registerDevice(user: "alice")
        let bobToken = try await harness.signer.userToken("bob")

        let notYours = await expectRPCError {
            _ = try await harness.client.call(Devices.Unregister.self, .init(deviceId: alices), token: bobToken)
        }
        let missing = await expectRPCError {
            _ = try await harness.client.call(
                Devices.Unregister.self, .init(deviceId: UUID().uuidString), token: bobToken)
        }
        #expect(notYours?.code == RPCErrorCode.notFound)
        #expect(notYours == missing)

        _ = try await harness.client.call(
            Devices.Unregister.self, .init(deviceId: alices), token: try await harness.signer.userToken("alice"))
        let listed = try await harness.client.call(
            Devices.List.self, Empty(), token: try await harness.signer.userToken("alice"))
        #expect(listed.devices.isEmpty)
        let afterwards = try await harness.send(to: "alice")
        #expect(afterwards.deliveries.isEmpty)
    }

    @Test("a deactivated device is listed as inactive, not targeted, and active again once re-registered")
    func deactivatedDevices() async throws {
        let harness = try await DispatchHarness()
        let device = try await harness.registerDevice(user: "alice", token: "install-9")
        let sent = try await harness.send(to: "alice")
        let job = try #require(try await harness.components.devices.pendingJobs(deviceID: device).first)
        // What a provider reports for a dead token (issue 3); recorded through the repository seam.
        try await SQLDeliveryRepository(database: harness.components.database.sql)
            .record(.deactivate(reason: "Unregistered"), for: job, now: harness.clock.now)

        let listed = try await harness.client.call(
            Devices.List.self, Empty(), token: try await harness.signer.userToken("alice"))
        #expect(listed.devices.first?.active == false)
        #expect(try await harness.status(sent.notificationId).deliveries.first?.status == .deactivated)
        #expect(try await harness.send(to: "alice").deliveries.isEmpty)

        _ = try await harness.registerDevice(user: "alice", token: "install-9")
        #expect(try await harness.send(to: "alice").deliveries.map(\.deviceId) == [device])
    }
}
