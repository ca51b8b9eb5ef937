import Crypto
import DispatchService
import Foundation
import MetricsTestKit
import ServiceCore
import ServiceLifecycle
import SharedModels
import Synchronization
import TestSupport
import Testing

/// Several apps in one deployment (issue 27): each app's devices are reached only through its own credentials.
@Suite("Apps: credentials, devices and sends per app")
struct AppsTests {
    /// Builds a scripted provider per app credentials, remembered by APNs topic / FCM account, as the real factory
    /// builds an `APNsProvider` per app.
    final class Providers: Sendable {
        let made = Mutex<[String: ScriptedProvider]>([:])

        var factory: AppCatalogLoader.ProviderFactory {
            { [self] credentials in
                var providers: [any RemotePushProvider] = []
                if let apns = credentials.apns {
                    let provider = ScriptedProvider(platform: .apns, script: Array(repeating: .sent, count: 20))
                    self.made.withLock { $0["apns:\(apns.topic)"] = provider }
                    providers.append(provider)
                }
                if let fcm = credentials.fcm {
                    let provider = ScriptedProvider(platform: .fcm, script: Array(repeating: .sent, count: 20))
                    self.made.withLock { $0["fcm:\(fcm.serviceAccount)"] = provider }
                    providers.append(provider)
                }
                return providers
            }
        }

        func provider(_ name: String) -> ScriptedProvider? { made.withLock { $0[name] } }
    }

    static func apns(topic: String, key: String = "-----BEGIN PRIVATE KEY-----k1-----END PRIVATE KEY-----")
        -> AppCredentials
    {
        AppCredentials(apns: .init(teamId: "TEAM123456", keyId: "KEY1234567", privateKey: key, topic: topic))
    }

    static func harness(
        _ providers: Providers, environment: [any RemotePushProvider] = [], databasePath: String? = nil,
        metrics: TestMetrics = TestMetrics()
    ) async throws -> (DispatchHarness, AppAdministration) {
        let harness = try await DispatchHarness(
            configuration: DispatchHarness.configuration(databasePath: databasePath, delivery: .fast()),
            providers: environment, appProviders: providers.factory, clock: LiveClock(), metrics: metrics)
        let admin = AppAdministration(
            repository: SQLAppRepository(database: harness.components.database.sql),
            keys: harness.configuration.appsKeys, makeProviders: providers.factory)
        return (harness, admin)
    }

    func register(
        _ harness: DispatchHarness, user: String, app: String?, platform: Platform = .apns, token: String? = "aaaa"
    ) async throws -> String {
        try await harness.client.call(
            Devices.Register.self, .init(platform: platform, token: token, appId: app),
            token: try await harness.signer.userToken(user)
        ).deviceId
    }

    func send(_ harness: DispatchHarness, to user: String, app: String?, claim: [String]) async throws
        -> Push.Send.Result
    {
        try await harness.client.call(
            Push.Send.self, .init(recipientId: user, payload: "the secret text", appId: app),
            token: try await harness.signer.senderToken("app-backend", apps: claim))
    }

    @Test("a send for app A reaches only A's devices, through A's credentials; B's and the default app's never")
    func sendsStayInTheirApp() async throws {
        let providers = Providers()
        let environmentAPNs = ScriptedProvider(platform: .apns, script: Array(repeating: .sent, count: 5))
        let (harness, admin) = try await Self.harness(providers, environment: [environmentAPNs])
        try await admin.create(
            id: "retail-ios", displayName: "Retail", credentials: Self.apns(topic: "com.bank.retail"))
        try await admin.create(
            id: "business-ios", displayName: "Business", credentials: Self.apns(topic: "com.bank.business"))
        try await harness.components.appLoader.refresh()

        // One phone, one APNs token per app: two devices, one per app; and a device of the default app.
        let retail = try await register(harness, user: "alice", app: "retail-ios")
        let business = try await register(harness, user: "alice", app: "business-ios")
        let legacy = try await register(harness, user: "alice", app: nil)
        #expect(Set([retail, business, legacy]).count == 3)
        let listed = try await harness.client.call(
            Devices.List.self, Empty(), token: try await harness.signer.userToken("alice")
        ).devices
        #expect(
            Dictionary(uniqueKeysWithValues: listed.map { ($0.deviceId, $0.appId) })
                == [retail: "retail-ios", business: "business-ios", legacy: "default"])

        let sent = try await send(harness, to: "alice", app: "retail-ios", claim: ["retail-ios"])
        #expect(sent.deliveries.map(\.deviceId) == [retail])
        let legacySend = try await send(harness, to: "alice", app: nil, claim: [])
        #expect(legacySend.deliveries.map(\.deviceId) == [legacy])
        try await RunningWorkers.with(harness.components.workers) { () async throws in
            let retailProvider = try #require(providers.provider("apns:com.bank.retail"))
            #expect(await eventually { retailProvider.jobs.count == 1 && environmentAPNs.jobs.count == 1 })
            #expect(retailProvider.jobs.map(\.deviceID) == [retail])
            #expect(retailProvider.jobs.map(\.notificationID) == [sent.notificationId])
            #expect(environmentAPNs.jobs.map(\.deviceID) == [legacy])
            #expect(providers.provider("apns:com.bank.business")?.jobs.isEmpty == true)
        }
    }

    @Test("a client may send only for the apps its token lists; unknown and malformed app ids are -32602")
    func clientsAreBoundToApps() async throws {
        let providers = Providers()
        let (harness, admin) = try await Self.harness(providers)
        try await admin.create(
            id: "retail-ios", displayName: "Retail", credentials: Self.apns(topic: "com.bank.retail"))
        try await admin.create(
            id: "business-ios", displayName: "Business", credentials: Self.apns(topic: "com.bank.business"))
        try await harness.components.appLoader.refresh()
        _ = try await register(harness, user: "alice", app: "business-ios")

        let otherApp = await expectRPCError {
            _ = try await send(harness, to: "alice", app: "business-ios", claim: ["retail-ios"])
        }
        #expect(otherApp?.code == RPCErrorCode.forbidden)
        #expect(otherApp?.data == .object(["appId": "business-ios"]))
        // No `apps` claim: the default app only.
        let noClaim = await expectRPCError { _ = try await send(harness, to: "alice", app: "retail-ios", claim: []) }
        #expect(noClaim?.code == RPCErrorCode.forbidden)
        let unknown = await expectRPCError { _ = try await send(harness, to: "alice", app: "nope", claim: ["nope"]) }
        #expect(unknown?.code == RPCErrorCode.invalidParams)
        #expect(unknown?.data == .object(["field": "appId"]))
        let malformed = await expectRPCError {
            _ = try await send(harness, to: "alice", app: "Retail", claim: ["Retail"])
        }
        #expect(malformed?.data == .object(["field": "appId"]))
        #expect(try await harness.count("push_send") == 0)

        let unknownDeviceApp = await expectRPCError { _ = try await register(harness, user: "bob", app: "nope") }
        #expect(unknownDeviceApp?.data == .object(["field": "appId"]))
        let noPlatform = await expectRPCError {
            _ = try await register(harness, user: "bob", app: "retail-ios", platform: .fcm, token: "fcm-token")
        }
        #expect(noPlatform?.data == .object(["field": "platform"]))
        #expect(noPlatform?.message.contains("not configured on app 'retail-ios'") == true)
        // Every app has the direct channel.
        _ = try await register(harness, user: "bob", app: "retail-ios", platform: .direct, token: nil)
    }

    @Test("an app's device limit counts its own devices only, overriding the deployment's")
    func deviceQuotaPerApp() async throws {
        let providers = Providers()
        let (harness, admin) = try await Self.harness(providers)
        try await admin.create(
            id: "kiosk", displayName: "Kiosk", credentials: Self.apns(topic: "com.bank.kiosk"),
            limits: .init(maxDevicesPerUser: 1))
        try await harness.components.appLoader.refresh()
        _ = try await register(harness, user: "alice", app: "kiosk", platform: .direct, token: nil)
        let second = await expectRPCError {
            _ = try await register(harness, user: "alice", app: "kiosk", platform: .direct, token: nil)
        }
        #expect(second?.code == RPCErrorCode.rateLimited)
        #expect(second?.data == .object(["quota": "devicesPerUser", "limit": 1, "appId": "kiosk"]))
        // The default app's devices are counted apart.
        _ = try await register(harness, user: "alice", app: nil, platform: .direct, token: nil)
        _ = try await register(harness, user: "alice", app: nil, platform: .direct, token: nil)
    }

    @Test("credentials are sealed at rest: the key bytes are nowhere in the SQLite files, and show prints fingerprints")
    func credentialsAreSealed() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let providers = Providers()
        let (harness, admin) = try await Self.harness(providers, databasePath: directory.databasePath)
        let secret = "-----BEGIN PRIVATE KEY-----MARKER-7f3a9c-----END PRIVATE KEY-----"
        try await admin.create(
            id: "retail-ios", displayName: "Retail", credentials: Self.apns(topic: "com.bank.retail", key: secret))
        try await harness.components.appLoader.refresh()
        #expect(harness.components.apps.apps.map(\.id) == ["default", "retail-ios"])
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: directory.path + "/" + name))
            #expect(bytes.range(of: Data("MARKER-7f3a9c".utf8)) == nil, "\(name) holds the key in clear")
            #expect(bytes.range(of: Data("TEAM123456".utf8)) == nil, "\(name) holds the team id in clear")
        }
        let shown = try await admin.show(id: "retail-ios")
        #expect(shown.fingerprints["apns"]?.contains("MARKER") == false)
        #expect(shown.fingerprints["apns"]?.contains("topic com.bank.retail") == true)
        // Interpolating credentials never prints a secret.
        let credentials = Self.apns(topic: "com.bank.retail", key: secret)
        #expect(!"\(credentials)".contains("MARKER") && !String(reflecting: credentials).contains("MARKER"))
        #expect(!"\(credentials.apns!)".contains("MARKER"))
        // A sealed row copied onto another app does not open.
        let sealer = try #require(try harness.configuration.appsKeys.sealer())
        #expect(throws: ConfigurationError.self) { try sealer.open(shown.app.sealedCredentials, appID: "other-app") }
    }

    @Test("two concurrent creates of one id: exactly one wins, the other is -32009")
    func concurrentCreates() async throws {
        let providers = Providers()
        let (_, admin) = try await Self.harness(providers)
        let results = await withTaskGroup(of: Int?.self) { group in
            for index in 0..<2 {
                group.addTask {
                    do {
                        try await admin.create(
                            id: "retail-ios", displayName: "Retail \(index)",
                            credentials: Self.apns(topic: "com.bank.retail"))
                        return 0
                    } catch let error as DispatchError {
                        return error.rpcError.code
                    } catch {
                        return nil
                    }
                }
            }
            var codes: [Int?] = []
            for await code in group { codes.append(code) }
            return codes.sorted { ($0 ?? 1) < ($1 ?? 1) }
        }
        #expect(results == [RPCErrorCode.conflict, 0])
        let reserved = await #expect(throws: DispatchError.self) {
            try await admin.create(id: "default", displayName: "Default", credentials: Self.apns(topic: "x.y"))
        }
        #expect(reserved?.rpcError.code == RPCErrorCode.conflict)
    }

    @Test("rotating credentials: later sends use the new credentials; deleting the app fails its queued deliveries")
    func rotateAndDelete() async throws {
        let providers = Providers()
        let (harness, admin) = try await Self.harness(providers)
        try await admin.create(id: "retail-ios", displayName: "Retail", credentials: Self.apns(topic: "com.bank.old"))
        try await harness.components.appLoader.refresh()
        let device = try await register(harness, user: "alice", app: "retail-ios")
        try await admin.update(id: "retail-ios", credentials: Self.apns(topic: "com.bank.new"))
        let retired = try await harness.components.appLoader.refresh()
        #expect(retired.map(\.id) == ["retail-ios"])
        let sent = try await send(harness, to: "alice", app: "retail-ios", claim: ["retail-ios"])
        try await RunningWorkers.with(harness.components.workers) { () async throws in
            let new = try #require(providers.provider("apns:com.bank.new"))
            #expect(await eventually { new.jobs.count == 1 })
            #expect(new.jobs.map(\.deviceID) == [device])
            #expect(providers.provider("apns:com.bank.old")?.jobs.isEmpty == true)
        }

        // Queued, never attempted: deleting the app fails the job and removes the device.
        let queued = try await send(harness, to: "alice", app: "retail-ios", claim: ["retail-ios"])
        let unconfirmed = await #expect(throws: DispatchError.self) {
            try await admin.delete(id: "retail-ios", confirm: "retail")
        }
        #expect(unconfirmed?.rpcError.data == .object(["field": "confirm"]))
        try await admin.delete(id: "retail-ios", confirm: "retail-ios")
        try await harness.components.appLoader.refresh()
        #expect(try await harness.status(queued.notificationId).deliveries.map(\.status) == [.failed])
        #expect(try await harness.status(sent.notificationId).deliveries.map(\.status) == [.sent])
        let gone = await expectRPCError { _ = try await register(harness, user: "alice", app: "retail-ios") }
        #expect(gone?.data == .object(["field": "appId"]))
    }

    @Test("apps.* need apps:admin, answer fingerprints never secrets, and each change is served at once")
    func rpcMethods() async throws {
        let providers = Providers()
        let (harness, _) = try await Self.harness(providers)
        let admin = try await harness.signer.token(subject: "ops", scopes: [Scope.appsAdmin])
        let sender = try await harness.signer.senderToken()
        let params = Apps.Create.Params(
            appId: "retail-ios", displayName: "Retail",
            credentials: Self.apns(topic: "com.bank.retail", key: "-----BEGIN PRIVATE KEY-----S3CRET-----END"))
        let refused = await expectRPCError {
            _ = try await harness.client.call(Apps.Create.self, params, token: sender)
        }
        #expect(refused?.code == RPCErrorCode.forbidden)
        let listRefused = await expectRPCError {
            _ = try await harness.client.call(Apps.List.self, Empty(), token: sender)
        }
        #expect(listRefused?.code == RPCErrorCode.forbidden)

        let created = try await harness.client.call(Apps.Create.self, params, token: admin)
        #expect(created.appId == "retail-ios")
        #expect(created.source == "database")
        #expect(created.revision == 1)
        #expect(created.fingerprints["apns"]?.contains("topic com.bank.retail") == true)
        #expect(created.fingerprints.values.allSatisfy { !$0.contains("S3CRET") })
        // Served by this replica before the answer: no wait for the refresh.
        _ = try await register(harness, user: "alice", app: "retail-ios")
        let twice = await expectRPCError { _ = try await harness.client.call(Apps.Create.self, params, token: admin) }
        #expect(twice?.code == RPCErrorCode.conflict)

        let listed = try await harness.client.call(Apps.List.self, Empty(), token: admin).apps
        #expect(listed.map(\.appId) == ["default", "retail-ios"])
        #expect(listed.first?.source == "environment")
        let missing = await expectRPCError {
            _ = try await harness.client.call(Apps.Get.self, .init(appId: "nope"), token: admin)
        }
        #expect(missing?.code == RPCErrorCode.notFound)

        let renamed = try await harness.client.call(
            Apps.Update.self, .init(appId: "retail-ios", displayName: "Retail banking"), token: admin)
        #expect(renamed.displayName == "Retail banking")
        #expect(renamed.revision == 2)
        let readOnly = await expectRPCError {
            _ = try await harness.client.call(Apps.Update.self, .init(appId: "default", displayName: "x"), token: admin)
        }
        #expect(readOnly?.data == .object(["field": "appId"]))

        let rotated = try await harness.client.call(
            Apps.RotateCredentials.self,
            .init(appId: "retail-ios", credentials: Self.apns(topic: "com.bank.retail2")), token: admin)
        #expect(rotated.revision == 3)
        #expect(rotated.fingerprints["apns"]?.contains("topic com.bank.retail2") == true)
        #expect(
            await harness.components.apps.provider(appID: "retail-ios", platform: .apns) as? ScriptedProvider
                === providers.provider("apns:com.bank.retail2"))

        let unconfirmed = await expectRPCError {
            _ = try await harness.client.call(
                Apps.Delete.self, .init(appId: "retail-ios", confirm: "retail"), token: admin)
        }
        #expect(unconfirmed?.data == .object(["field": "confirm"]))
        _ = try await harness.client.call(
            Apps.Delete.self, .init(appId: "retail-ios", confirm: "retail-ios"), token: admin)
        let gone = await expectRPCError { _ = try await register(harness, user: "alice", app: "retail-ios") }
        #expect(gone?.data == .object(["field": "appId"]))
    }

    @Test("another user's platform token stays pending in another app too: a second app is no way around the challenge")
    func tokenProofAcrossApps() async throws {
        let providers = Providers()
        let (harness, admin) = try await Self.harness(
            providers, environment: [ScriptedProvider(platform: .apns, script: [.sent, .sent])])
        try await admin.create(id: "partner-ios", displayName: "Partner", credentials: Self.apns(topic: "com.partner"))
        try await harness.components.appLoader.refresh()
        _ = try await register(harness, user: "alice", app: nil, token: "a1a1")
        let taken = try await harness.client.call(
            Devices.Register.self, .init(platform: .apns, token: "a1a1", appId: "partner-ios"),
            token: try await harness.signer.userToken("mallory"))
        #expect(taken.verification == DeviceVerification.pending)
        // Alice's own token in the second app is hers at once.
        let own = try await harness.client.call(
            Devices.Register.self, .init(platform: .apns, token: "a1a1", appId: "partner-ios"),
            token: try await harness.signer.userToken("alice"))
        #expect(own.verification == nil)
    }

    @Test(
        "a send to many counts each known recipient against the app's sendsPerMinute; one that would pass it is refused whole"
    )
    func sendToManyQuota() async throws {
        let providers = Providers()
        let (harness, admin) = try await Self.harness(providers)
        try await admin.create(
            id: "alerts", displayName: "Alerts", credentials: Self.apns(topic: "com.bank.alerts"),
            limits: .init(sendsPerMinute: 5))
        try await harness.components.appLoader.refresh()
        harness.auth.knowOnly(["alice", "bob", "carol", "dave", "erin", "frank"])
        let token = try await harness.signer.senderToken("app-backend", apps: ["alerts"])
        func send(_ recipients: [String], key: String? = nil) async throws -> Push.SendToMany.Result {
            try await harness.client.call(
                Push.SendToMany.self,
                .init(recipientIds: recipients, payload: "p", idempotencyKey: key, appId: "alerts"), token: token)
        }
        // Three known recipients count three; the unknown one counts nothing.
        let first = try await send(["alice", "bob", "carol", "nobody"], key: "k1")
        #expect(first.notifications.count == 3)
        #expect(try await send(["alice", "bob", "carol", "nobody"], key: "k1") == first, "a repeat is not counted")
        let tooMany = await expectRPCError { _ = try await send(["alice", "bob", "dave"]) }
        #expect(tooMany?.code == RPCErrorCode.rateLimited)
        #expect(harness.store.calls.count == 3, "a refused send stores nothing")
        // The two left in the minute are still there.
        #expect(try await send(["alice", "dave"]).notifications.count == 2)
        let sixth = await expectRPCError { _ = try await send(["alice"]) }
        #expect(sixth?.code == RPCErrorCode.rateLimited)
        // More known recipients than a whole minute allows can never pass: a -32602 to split the call, not a wait.
        let whole = await expectRPCError { _ = try await send(["alice", "bob", "carol", "dave", "erin", "frank"]) }
        #expect(whole?.code == RPCErrorCode.invalidParams)
        #expect(whole?.data == .object(["field": "recipientIds"]))
    }

    @Test(
        "an app's sendsPerMinute counts every send of the app (not a repeated idempotency key) and refuses with retryAfterSeconds; its payload and TTL bounds lower the deployment's"
    )
    func sendLimits() async throws {
        let providers = Providers()
        let (harness, admin) = try await Self.harness(providers)
        try await admin.create(
            id: "alerts", displayName: "Alerts", credentials: Self.apns(topic: "com.bank.alerts"),
            limits: .init(sendsPerMinute: 2, maxPayloadBytes: 10, maxTTLSeconds: 60))
        try await harness.components.appLoader.refresh()
        _ = try await register(harness, user: "alice", app: "alerts", platform: .direct, token: nil)
        let token = try await harness.signer.senderToken("app-backend", apps: ["alerts", "default"])
        func send(_ payload: String = "short", ttl: Int? = nil, key: String? = nil, app: String? = "alerts")
            async throws -> Push.Send.Result
        {
            try await harness.client.call(
                Push.Send.self,
                .init(recipientId: "alice", payload: payload, ttlSeconds: ttl, idempotencyKey: key, appId: app),
                token: token)
        }
        let first = try await send(key: "k1")
        #expect(try await send(key: "k1") == first, "a repeated key answers the first result and is not counted")
        _ = try await send()
        let third = await expectRPCError { _ = try await send() }
        #expect(third?.code == RPCErrorCode.rateLimited)
        guard case .object(let data)? = third?.data else {
            Issue.record("no data: \(String(describing: third))")
            return
        }
        #expect(data["quota"] == "sendsPerMinute")
        #expect(data["limit"] == 2)
        #expect(data["appId"] == "alerts")
        guard case .int(let retryAfter)? = data["retryAfterSeconds"] else {
            Issue.record("no retryAfterSeconds in \(data)")
            return
        }
        #expect((1...60).contains(retryAfter))
        // Other apps are not limited by it.
        for _ in 0..<3 { _ = try await send(app: nil) }

        let large = await expectRPCError { _ = try await send("eleven byte") }
        #expect(large?.data == .object(["field": "payload"]))
        #expect(large?.message.contains("at most 10 bytes") == true)
        let long = await expectRPCError { _ = try await send(ttl: 61) }
        #expect(long?.data == .object(["field": "ttlSeconds"]))
        // Without ttlSeconds, the app's own bound shortens the deployment's default lifetime (7 days); other apps'
        // sends keep leaving it to the store.
        try await admin.create(
            id: "brief", displayName: "Brief", credentials: Self.apns(topic: "com.bank.brief"),
            limits: .init(maxTTLSeconds: 60))
        try await harness.components.appLoader.refresh()
        _ = try await harness.client.call(
            Push.Send.self, .init(recipientId: "alice", payload: "short", appId: "brief"),
            token: try await harness.signer.senderToken("app-backend", apps: ["brief"]))
        #expect(harness.store.storedCalls.last?.params.ttlSeconds == 60)
        _ = try await send(app: nil)
        #expect(harness.store.storedCalls.last?.params.ttlSeconds == nil)

        let beyond = await #expect(throws: DispatchError.self) {
            try await admin.create(
                id: "huge", displayName: "Huge", credentials: Self.apns(topic: "com.bank.huge"),
                limits: .init(maxPayloadBytes: 10_000_000))
        }
        #expect(beyond?.rpcError.data == .object(["field": "limits.maxPayloadBytes"]))
    }

    @Test("delivery metrics carry the app, bounded to the apps served")
    func metricsByApp() async throws {
        let providers = Providers()
        let metrics = TestMetrics()
        let environmentAPNs = ScriptedProvider(platform: .apns, script: Array(repeating: .sent, count: 5))
        let (harness, admin) = try await Self.harness(providers, environment: [environmentAPNs], metrics: metrics)
        try await admin.create(
            id: "retail-ios", displayName: "Retail", credentials: Self.apns(topic: "com.bank.retail"))
        try await harness.components.appLoader.refresh()
        _ = try await register(harness, user: "alice", app: "retail-ios")
        _ = try await register(harness, user: "alice", app: nil, token: "bbbb")
        _ = try await send(harness, to: "alice", app: "retail-ios", claim: ["retail-ios"])
        _ = try await send(harness, to: "alice", app: nil, claim: [])
        try await RunningWorkers.with(harness.components.workers) { () async throws in
            #expect(await eventually { providers.provider("apns:com.bank.retail")?.jobs.count == 1 })
            #expect(await eventually { environmentAPNs.jobs.count == 1 })
            #expect(
                await eventually {
                    for app in ["retail-ios", "default"] {
                        let sent = try? metrics.expectCounter(
                            "securepush_deliveries_total", [("platform", "apns"), ("app", app), ("status", "sent")])
                        guard sent?.totalValue == 1 else { return false }
                    }
                    return true
                })
        }
        #expect(
            try metrics.expectCounter(
                "securepush_provider_attempts_total", [("platform", "apns"), ("app", "retail-ios"), ("result", "sent")]
            ).totalValue == 1)
        let apps = Set(metrics.counters.flatMap { $0.dimensions.filter { $0.0 == "app" }.map(\.1) })
        #expect(apps.isSubset(of: ["default", "retail-ios", "other"]), "\(apps)")
    }

    @Test(
        "an app's Web Push credentials: its own VAPID key from devices.webPushKey, its own allowed hosts; WNS credentials build a WNS provider"
    )
    func webPushAndWNSApps() async throws {
        let factory = PushProviders.appProviderFactory(environment: ServiceEnvironment([:]), logger: .quiet)
        let harness = try await DispatchHarness(appProviders: factory)
        let admin = AppAdministration(
            repository: SQLAppRepository(database: harness.components.database.sql),
            keys: harness.configuration.appsKeys, makeProviders: factory)
        let vapid = P256.Signing.PrivateKey()
        try await admin.create(
            id: "retail-web", displayName: "Retail (web)",
            credentials: AppCredentials(
                wns: .init(packageSid: "ms-app://S-1-15-2-1", secret: "wns-secret"),
                webPush: .init(
                    vapidPrivateKey: vapid.pemRepresentation, subject: "mailto:push@bank.example",
                    allowedHosts: ["push.bank.example"])))
        try await harness.components.appLoader.refresh()
        let served = try #require(await harness.components.apps.app("retail-web"))
        #expect(served.platforms == [.direct, .webpush, .wns])

        let key = try await harness.client.call(Devices.WebPushKey.self, .init(appId: "retail-web")).vapidPublicKey
        #expect(key == vapid.publicKey.x963Representation.base64URLEncodedString())
        let noWebPush = await expectRPCError { _ = try await harness.client.call(Devices.WebPushKey.self, .init()) }
        #expect(noWebPush?.code == RPCErrorCode.notFound)

        let p256dh = P256.KeyAgreement.PrivateKey().publicKey.x963Representation.base64URLEncodedString()
        func subscription(_ host: String) -> String {
            #"{"endpoint":"https://\#(host)/wpush/abc","keys":{"p256dh":"\#(p256dh)","auth":"BTBZMqHH6r4Tts7J_aSIgg"}}"#
        }
        _ = try await register(
            harness, user: "alice", app: "retail-web", platform: .webpush, token: subscription("push.bank.example"))
        let elsewhere = await expectRPCError {
            _ = try await register(
                harness, user: "alice", app: "retail-web", platform: .webpush, token: subscription("evil.example"))
        }
        #expect(elsewhere?.data == .object(["field": "token"]))
        let shown = try await admin.show(id: "retail-web").fingerprints
        #expect(shown["wns"]?.hasPrefix("package ms-app://S-1-15-2-1, sha256:") == true)
        #expect(shown["webpush"]?.contains(key) == true)
        #expect(shown.values.allSatisfy { !$0.contains("wns-secret") })
        for provider in served.providers.values { await provider.shutdown() }
    }

    @Test(
        "an app's origins join the CORS allow-list (preflight and answers), and a browser registers its devices only from them"
    )
    func appOrigins() async throws {
        let providers = Providers()
        let (harness, admin) = try await Self.harness(providers)
        try await admin.create(
            id: "retail-web", displayName: "Retail (web)", credentials: Self.apns(topic: "com.bank.retail"),
            allowedOrigins: ["https://Retail.Bank.example:443"])
        try await admin.create(
            id: "business-web", displayName: "Business (web)", credentials: Self.apns(topic: "com.bank.business"),
            allowedOrigins: ["https://business.bank.example"])
        try await harness.components.appLoader.refresh()
        let refused = await #expect(throws: DispatchError.self) {
            try await admin.create(
                id: "plain", displayName: "Plain", credentials: Self.apns(topic: "x.y"),
                allowedOrigins: ["http://bank.example"])
        }
        #expect(refused?.rpcError.data == .object(["field": "allowedOrigins"]))
        #expect(try await admin.show(id: "retail-web").app.allowedOrigins == ["https://retail.bank.example"])

        let token = try await harness.signer.userToken("alice")
        try await RunningDispatch.with(harness) { port in
            let url = "http://127.0.0.1:\(port)/rpc"
            let preflight = try await WebClientTests.curl([
                "--http1.1", "-X", "OPTIONS", "-H", "Origin: https://retail.bank.example",
                "-H", "Access-Control-Request-Method: POST", url,
            ])
            #expect(preflight.status == 204)
            #expect(preflight.headers["access-control-allow-origin"] == "https://retail.bank.example")
            let stranger = try await WebClientTests.curl([
                "--http1.1", "-X", "OPTIONS", "-H", "Origin: https://evil.example",
                "-H", "Access-Control-Request-Method: POST", url,
            ])
            #expect(stranger.status == 403)

            func register(app: String, from origin: String) async throws -> (status: Int, body: String) {
                let body =
                    #"{"jsonrpc":"2.0","id":1,"method":"devices.register","params":{"platform":"direct","appId":"\#(app)"}}"#
                let answer = try await WebClientTests.curl([
                    "--http1.1", "-H", "Origin: \(origin)", "-H", "Authorization: Bearer \(token)",
                    "-H", "Content-Type: application/json", "--data", body, url,
                ])
                return (answer.status, answer.body)
            }
            let own = try await register(app: "retail-web", from: "https://retail.bank.example")
            #expect(own.status == 200 && own.body.contains("deviceId"), "\(own.body)")
            // Another app's page is allowed by CORS, but may not register this app's devices.
            let other = try await register(app: "retail-web", from: "https://business.bank.example")
            #expect(other.body.contains("-32003") && other.body.contains("retail-web"), "\(other.body)")
            // Nor those of an app without origins of its own, such as the default app (its origins are
            // SECUREPUSH_CORS_ORIGINS: none here) ...
            let defaultApp = try await register(app: "default", from: "https://business.bank.example")
            #expect(defaultApp.body.contains("-32003") && defaultApp.body.contains("default"), "\(defaultApp.body)")
            // ... while push-dispatch's own pages (the web inbox) register the default app's devices.
            let inbox = try await register(app: "default", from: "http://127.0.0.1:\(port)")
            #expect(inbox.status == 200 && inbox.body.contains("deviceId"), "\(inbox.body)")
        }
    }

    @Test(
        "rotating an app's credentials while an attempt is in flight loses nothing: it finishes with the old provider, which is closed only later; new attempts use the new one"
    )
    func rotateWithAttemptInFlight() async throws {
        let providers = Providers()
        let (harness, admin) = try await Self.harness(providers)
        try await admin.create(id: "retail-ios", displayName: "Retail", credentials: Self.apns(topic: "com.bank.old"))
        try await harness.components.appLoader.refresh()
        _ = try await register(harness, user: "alice", app: "retail-ios")
        let old = try #require(providers.provider("apns:com.bank.old"))
        old.closeGate()
        let first = try await send(harness, to: "alice", app: "retail-ios", claim: ["retail-ios"])
        // The loader runs too: it closes retired providers (after its delay) and every provider when it stops.
        let services: [any Service] = [harness.components.appLoader] + harness.components.workers
        try await RunningWorkers.with(services) { () async throws in
            #expect(await eventually { old.heldCount == 1 })
            try await admin.update(id: "retail-ios", credentials: Self.apns(topic: "com.bank.new"))
            try await harness.components.appLoader.refresh()
            let second = try await send(harness, to: "alice", app: "retail-ios", claim: ["retail-ios"])
            let new = try #require(providers.provider("apns:com.bank.new"))
            #expect(await eventually { new.jobs.map(\.notificationID) == [second.notificationId] })
            // The attempt that started before the rotation is still held by the old provider, which is not closed.
            #expect(old.heldCount == 1)
            #expect(old.shutdowns == 0)
            old.openGate()
            #expect(
                try await eventually {
                    try await harness.status(first.notificationId).deliveries.map(\.status) == [.sent]
                })
            #expect(old.jobs.map(\.notificationID) == [first.notificationId])
        }
        // Stopping the loader closes what it retired.
        #expect(old.shutdowns == 1)
    }
}
