import DispatchService
import Foundation
import SharedModels
import TestSupport
import Testing

@Suite("devices.register apnsMode: an APNs device chooses alert or background pushes")
struct DeviceAPNsModeTests {
    static let token = "abcd"

    /// Registers an APNs device for `user` with `apnsMode`.
    static func register(
        _ harness: DispatchHarness, user: String = "alice", platform: Platform = .apns, token: String? = token,
        apnsMode: String?
    ) async throws -> String {
        try await harness.client.call(
            Devices.Register.self, .init(platform: platform, token: token, apnsMode: apnsMode),
            token: try await harness.signer.userToken(user)
        ).deviceId
    }

    /// What devices.list says about the user's devices' modes, by device id.
    static func listedModes(_ harness: DispatchHarness, user: String = "alice") async throws -> [String: String?] {
        let listed = try await harness.client.call(
            Devices.List.self, Empty(), token: try await harness.signer.userToken(user))
        return Dictionary(uniqueKeysWithValues: listed.devices.map { ($0.deviceId, $0.apnsMode) })
    }

    @Test("the chosen mode is stored, listed, and replaced (or cleared) when the token registers again")
    func storedAndListed() async throws {
        let harness = try await DispatchHarness.remote([ScriptedProvider(platform: .apns)])
        let phone = try await Self.register(harness, apnsMode: "background")
        let other = try await Self.register(harness, token: "ef01", apnsMode: nil)
        #expect(try await Self.listedModes(harness) == [phone: "background", other: nil])

        #expect(try await Self.register(harness, apnsMode: "alert") == phone)
        #expect(try await Self.listedModes(harness)[phone] == "alert")
        // Unset means the deployment's mode, for the latest registration too.
        #expect(try await Self.register(harness, apnsMode: nil) == phone)
        #expect(try await Self.listedModes(harness)[phone] == .some(nil))
        #expect(try await harness.count("device") == 2)
    }

    @Test("an unknown mode, or a mode for another platform, is -32602 naming apnsMode and stores nothing")
    func refused() async throws {
        let harness = try await DispatchHarness.remote([
            ScriptedProvider(platform: .apns), ScriptedProvider(platform: .fcm),
        ])
        let cases: [(Platform, String?, String, String)] = [
            (.apns, Self.token, "silent", "must be alert or background"),
            (.apns, Self.token, "Background", "must be alert or background"),
            (.apns, Self.token, "", "must be alert or background"),
            (.fcm, Self.token, "alert", "only applies to platform apns"),
            (.direct, nil, "background", "only applies to platform apns"),
        ]
        for (platform, token, mode, reason) in cases {
            let error = await expectRPCError {
                _ = try await Self.register(harness, platform: platform, token: token, apnsMode: mode)
            }
            #expect(error?.code == RPCErrorCode.invalidParams, "\(platform) \(mode)")
            #expect(error?.data == .object(["field": "apnsMode"]), "\(platform) \(mode)")
            #expect(error?.message.contains(reason) == true, "\(error?.message ?? "no error")")
        }
        #expect(try await harness.count("device") == 0)
    }

    @Test("jobs read back from the database carry the device's mode: claimed, pending and handed to the provider")
    func jobsCarryTheMode() async throws {
        let apns = ScriptedProvider(platform: .apns, script: [.sent, .sent])
        let harness = try await DispatchHarness.remote([apns])
        let quiet = try await Self.register(harness, apnsMode: "background")
        let plain = try await Self.register(harness, token: "ef01", apnsMode: nil)
        let sent = try await harness.send(to: "alice").notificationId

        let pending = try await harness.components.devices.pendingJobs(deviceID: quiet)
        #expect(pending.map(\.apnsMode) == ["background"])
        let repository = SQLDeliveryRepository(database: harness.components.database.sql)
        let claimed = try await repository.claimDue(
            platform: .apns, owner: "test", now: Date().addingTimeInterval(1),
            leaseUntil: Date().addingTimeInterval(600), limit: 10)
        #expect(
            Dictionary(uniqueKeysWithValues: claimed.map { ($0.deviceID, $0.apnsMode) }) == [
                quiet: "background", plain: nil,
            ])

        for job in claimed { try await repository.releaseLease(of: job, owner: "test", claimableAfter: nil) }
        // Released, the worker hands the provider the same jobs.
        try await RunningWorkers.with(harness.components.workers) { () async throws in
            #expect(
                try await eventually {
                    try await harness.status(sent).deliveries.allSatisfy { $0.status == .sent }
                })
        }
        #expect(
            Dictionary(uniqueKeysWithValues: apns.jobs.map { ($0.deviceID, $0.apnsMode) })
                == [quiet: "background", plain: nil])
    }
}
