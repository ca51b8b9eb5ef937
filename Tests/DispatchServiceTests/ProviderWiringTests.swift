import DispatchService
import Foundation
import ServiceCore
import SharedModels
import TestSupport
import Testing

@Suite("Remote providers in the registry")
struct ProviderWiringTests {
    @Test("devices.register accepts exactly direct and the configured platforms; one worker per remote platform")
    func configuredPlatforms() async throws {
        let harness = try await DispatchHarness.remote([
            ScriptedProvider(platform: .webpush), ScriptedProvider(platform: .apns),
        ])
        #expect(harness.components.providers.platforms == [.apns, .direct, .webpush])
        // Apps in the database may configure any platform: every remote platform has its worker.
        #expect(harness.components.workers.map(\.platform) == [.apns, .fcm, .webpush, .wns])
        _ = try await harness.registerDevice(user: "alice", platform: .apns, token: "abcd")
        _ = try await harness.registerDevice(user: "alice", platform: .webpush, token: "{\"endpoint\":\"x\"}")
        _ = try await harness.registerDevice(user: "alice")

        let fcm = await expectRPCError {
            _ = try await harness.registerDevice(user: "alice", platform: .fcm, token: "abcd")
        }
        #expect(fcm?.code == RPCErrorCode.invalidParams)
        #expect(fcm?.data == .object(["field": "platform"]))
        #expect(
            fcm?.message.contains("'fcm' is not configured on this server (supported: apns, direct, webpush)") == true)
        // The provider checks its tokens.
        let noToken = await expectRPCError {
            _ = try await harness.registerDevice(user: "alice", platform: .apns)
        }
        #expect(noToken?.data == .object(["field": "token"]))
    }

    @Test("a send to a user with direct and remote devices: the worker delivers only its platform's job")
    func mixedDevices() async throws {
        let apns = ScriptedProvider(platform: .apns, script: [.sent])
        let webpush = ScriptedProvider(platform: .webpush, script: [.retry(after: .seconds(600), reason: "429")])
        // The provider's 600 s is honoured (the fast test policy would cap it at 40 ms and attempt again, unscripted,
        // before a busy machine's poll saw `retrying`).
        var delivery = DeliveryConfiguration.fast()
        delivery.retry.maxDelay = .seconds(600)
        let harness = try await DispatchHarness.remote([apns, webpush], delivery: delivery)
        let phone = try await harness.registerDevice(user: "alice", platform: .apns, token: "abcd")
        let browser = try await harness.registerDevice(user: "alice", platform: .webpush, token: "{}")
        let direct = try await harness.registerDevice(user: "alice")
        let sent = try await harness.send(to: "alice").notificationId
        try await RunningWorkers.with(harness.components.workers) { () async throws in
            #expect(
                try await eventually {
                    let states = try await harness.status(sent).deliveries
                    return states.first { $0.deviceId == phone }?.status == .sent
                        && states.first { $0.deviceId == browser }?.status == .retrying
                })
        }
        #expect(apns.jobs.map(\.deviceID) == [phone])
        #expect(webpush.jobs.map(\.deviceID) == [browser])
        let states = try await harness.status(sent).deliveries
        #expect(states.first { $0.deviceId == direct }?.status == .queued)
        #expect(try await harness.pendingIDs(direct) == [sent])
    }

    @Test("a provider for direct, or two for one platform, is a configuration error")
    func refusedProviderSets() async throws {
        let auth = FakeAuth(signer: try await TestSigner())
        let store = FakeStore(clock: TestClock())
        for (providers, expected) in [
            ([ScriptedProvider(platform: .direct)], "'direct'"),
            ([ScriptedProvider(platform: .fcm), ScriptedProvider(platform: .fcm)], "'fcm'"),
        ] {
            #expect {
                _ = try DispatchComponents.make(
                    configuration: DispatchHarness.configuration(), auth: auth.client,
                    store: store.client, providers: providers, logger: .quiet)
            } throws: { error in
                error is ConfigurationError && "\(error)".contains(expected)
            }
        }
    }

    @Test("without configuration variables there are no remote providers")
    func noProvidersByDefault() async throws {
        #expect(try await PushProviders.remoteProviders(environment: ServiceEnvironment([:]), logger: .quiet).isEmpty)
    }
}
