import DispatchService
import Foundation
import JSONRPC
import ServiceCore
import SharedModels
import Synchronization
import TestSupport
import Testing

/// What a replica serves after changes it learns of only at its next refresh (issue 27): never older credentials
/// than the database holds, and an app it could not open served once it can.
@Suite("Apps: what a replica serves between refreshes")
struct AppRefreshTests {
    @Test("an app deleted and created again between two refreshes is served with its new credentials, not the old")
    func recreatedBetweenRefreshes() async throws {
        let providers = AppsTests.Providers()
        let (harness, admin) = try await AppsTests.harness(providers)
        try await admin.create(id: "retail-ios", displayName: "Retail", credentials: AppsTests.apns(topic: "com.old"))
        try await harness.components.appLoader.refresh()
        try await admin.delete(id: "retail-ios", confirm: "retail-ios")
        // Created again at once: its revision starts over at 1, as the deleted one's did.
        try await Task.sleep(for: .milliseconds(2))
        let again = try await admin.create(
            id: "retail-ios", displayName: "Retail", credentials: AppsTests.apns(topic: "com.new"))
        #expect(again.revision == 1)
        let retired = try await harness.components.appLoader.refresh()
        #expect(retired.map(\.id) == ["retail-ios"])

        let device = try await AppsTests().register(harness, user: "alice", app: "retail-ios")
        _ = try await AppsTests().send(harness, to: "alice", app: "retail-ios", claim: ["retail-ios"])
        try await RunningWorkers.with(harness.components.workers) { () async throws in
            let new = try #require(providers.provider("apns:com.new"))
            #expect(await eventually { new.jobs.count == 1 })
            #expect(new.jobs.map(\.deviceID) == [device])
            #expect(providers.provider("apns:com.old")?.jobs.isEmpty == true)
        }
    }

    @Test(
        "an app sealed under a key this replica lacks is not served, not even with its older credentials, and is served once the key file has the key"
    )
    func unusableUntilTheKeyArrives() async throws {
        let replica = try await KeyFileReplica()
        defer { replica.remove() }
        let (harness, providers, repository, file, new) = (
            replica.harness, replica.providers, replica.repository, replica.file, replica.new
        )
        let thisReplica = replica.administration
        let old = replica.old
        #expect(harness.components.apps.serves("retail-ios"))

        // Another replica, whose key file already has the new key, rotates the credentials under it.
        let ring = try #require(EncryptionKeyRing([old, new]))
        let otherReplica = AppAdministration(
            repository: repository, keys: .keys(ring), makeProviders: providers.factory)
        try await otherReplica.update(id: "retail-ios", credentials: AppsTests.apns(topic: "com.new"))
        let retired = try await harness.components.appLoader.refresh()
        #expect(retired.map(\.id) == ["retail-ios"])
        #expect(!harness.components.apps.serves("retail-ios"), "the replaced credentials must not be used any longer")
        try await harness.components.appLoader.refresh()
        #expect(!harness.components.apps.serves("retail-ios"))
        // apps.list on this replica still lists every app, saying which it cannot open.
        try await thisReplica.create(
            id: "business-ios", displayName: "Business", credentials: AppsTests.apns(topic: "com.business"))
        let admin = try await harness.signer.token(subject: "ops", scopes: [Scope.appsAdmin])
        let listed = try await harness.client.call(Apps.List.self, Empty(), token: admin).apps
        #expect(listed.map(\.appId) == ["default", "business-ios", "retail-ios"])
        #expect(listed.first { $0.appId == "business-ios" }?.unusable == nil)
        let unusable = try #require(listed.first { $0.appId == "retail-ios" })
        #expect(unusable.unusable?.contains("sealed with key '\(new.id)'") == true, "\(unusable)")
        #expect(unusable.fingerprints.isEmpty)

        try file.append(new)
        try await harness.components.appLoader.refresh()
        #expect(harness.components.apps.serves("retail-ios"))
        #expect(
            await harness.components.apps.provider(appID: "retail-ios", platform: .apns) as? ScriptedProvider
                === providers.provider("apns:com.new"))
    }

    @Test(
        "when the first read of the apps fails, an app not known yet is -32050 (try again), never 'no such app', until a refresh succeeds"
    )
    func firstLoadFails() async throws {
        let providers = AppsTests.Providers()
        let (harness, admin) = try await AppsTests.harness(providers)
        try await admin.create(id: "retail-ios", displayName: "Retail", credentials: AppsTests.apns(topic: "com.r"))
        let sql = harness.components.database.sql
        _ = try await sql.execute("ALTER TABLE app RENAME TO app_away", [])
        let catalog = AppCatalog(environmentProviders: [], loadsDatabase: true, firstLoadWait: .milliseconds(50))
        let loader = AppCatalogLoader(
            catalog: catalog, repository: SQLAppRepository(database: sql), keys: harness.configuration.appsKeys,
            makeProviders: providers.factory, interval: .milliseconds(100), logger: .quiet)
        let registry = PushProviderRegistry(direct: DirectProvider(hub: DirectHub()), catalog: catalog, workers: [])
        let running = Task { try await loader.run() }
        defer { running.cancel() }
        // The first read failed well before this (and the next ones too).
        try await Task.sleep(for: .milliseconds(300))
        #expect(!catalog.isLoaded)
        let unavailable = await #expect(throws: DispatchError.self) { _ = try await registry.app("retail-ios") }
        #expect(unavailable?.rpcError.code == RPCErrorCode.unavailable)

        _ = try await sql.execute("ALTER TABLE app_away RENAME TO app", [])
        #expect(await eventually { (try? await registry.app("retail-ios"))?.id == "retail-ios" })
        let unknown = await #expect(throws: DispatchError.self) { _ = try await registry.app("nope") }
        #expect(unknown?.rpcError.data == .object(["field": "appId"]))
    }

    @Test(
        "a job of an app this replica does not serve is handed back uncounted, claimable later by any replica, and sent once the app is served"
    )
    func unservedJobsKeepTheirAttempts() async throws {
        let replica = try await KeyFileReplica()
        defer { replica.remove() }
        let (harness, providers, repository, file, old, new) = (
            replica.harness, replica.providers, replica.repository, replica.file, replica.old, replica.new
        )
        _ = try await AppsTests().register(harness, user: "alice", app: "retail-ios")
        let sent = try await AppsTests().send(harness, to: "alice", app: "retail-ios", claim: ["retail-ios"])
        // Rotated under a key this replica lacks: the queued job's app is not served here any more.
        try await AppAdministration(
            repository: repository, keys: .keys(try #require(EncryptionKeyRing([old, new]))),
            makeProviders: providers.factory
        ).update(id: "retail-ios", credentials: AppsTests.apns(topic: "com.new"))
        try await harness.components.appLoader.refresh()
        #expect(!harness.components.apps.serves("retail-ios"))

        let sql = harness.components.database.sql
        let before = Date()
        try await RunningWorkers.with(harness.components.workers) { () async throws in
            // Handed back: no owner, claimable again only later (a claim, by contrast, names its owner). Read in one
            // statement with its attempts, however often a slow machine claims and hands it back meanwhile.
            let handedBack = Mutex<(attempts: Int64, status: String, claimable: Date, readAt: Date)?>(nil)
            #expect(
                try await eventually {
                    let readAt = Date()
                    guard
                        let row = try await sql.readOne(
                            """
                            SELECT attempts, status, lease_until FROM delivery
                            WHERE lease_owner IS NULL AND lease_until IS NOT NULL
                            """, [])
                    else { return false }
                    let found = (
                        try row.decode(0, as: Int64.self), try row.decode(1, as: String.self),
                        Date(millisecondsSince1970: try row.decode(2, as: Int64.self)), readAt
                    )
                    handedBack.withLock { $0 = found }
                    return true
                })
            let row = try #require(handedBack.withLock { $0 })
            #expect(row.attempts == 0, "no attempt is counted")
            #expect(row.status == "queued")
            #expect(
                row.claimable >= before.addingTimeInterval(9) && row.claimable <= row.readAt.addingTimeInterval(10.5))
            #expect(providers.provider("apns:com.old")?.jobs.isEmpty == true)

            // The key arrives; once the hand-back lapses (made to lapse now), the job goes out with the new
            // credentials.
            try file.append(new)
            try await harness.components.appLoader.refresh()
            let current = try #require(providers.provider("apns:com.new"))
            // (An attempt that looked the app up before the refresh may still hand it back once more: lapse that too.)
            #expect(
                try await eventually(timeout: .seconds(30)) {
                    _ = try await sql.execute(
                        "UPDATE delivery SET lease_until = NULL WHERE lease_owner IS NULL AND status = 'queued'", [])
                    return current.jobs.count == 1
                })
        }
        #expect(try await harness.status(sent.notificationId).deliveries.map(\.status) == [.sent])
    }
}

/// A push-dispatch whose apps key file holds only the `old` key, serving `retail-ios` (topic `com.old`) sealed under
/// it; `new` is a key another replica may already have.
struct KeyFileReplica {
    let directory: URL
    let file: EncryptionKeyFile
    let old = EncryptionKey.generate(now: Date(timeIntervalSince1970: 1_000))
    let new = EncryptionKey.generate(now: Date(timeIntervalSince1970: 2_000))
    let providers = AppsTests.Providers()
    let harness: DispatchHarness
    let repository: SQLAppRepository
    /// `securepush apps` with this replica's key file.
    let administration: AppAdministration

    init() async throws {
        directory = TemporaryDirectory.processRootURL.appendingPathComponent("apps-\(UUID().uuidString)")
        let path = directory.appendingPathComponent("apps-keys").path
        file = EncryptionKeyFile(path: path, purpose: .apps)
        #expect(try file.create(with: old))
        var configuration = DispatchHarness.configuration(delivery: .fast())
        configuration.appsKeys = .file(path)
        harness = try await DispatchHarness(
            configuration: configuration, appProviders: providers.factory, clock: LiveClock())
        repository = SQLAppRepository(database: harness.components.database.sql)
        administration = AppAdministration(repository: repository, keys: .file(path), makeProviders: providers.factory)
        try await administration.create(
            id: "retail-ios", displayName: "Retail", credentials: AppsTests.apns(topic: "com.old"))
        try await harness.components.appLoader.refresh()
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }
}
