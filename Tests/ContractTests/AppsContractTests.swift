import Foundation
import SharedModels
import Testing

@Suite("apps.* wire contract")
struct AppsContractTests {
    static let info = Apps.AppInfo(
        appId: "retail-ios", displayName: "Retail (iOS)", source: "database",
        fingerprints: ["apns": "team TEAM123456, key ABC123DEFG, topic com.bank.retail, sha256:3fa9c1d27b4e8a60"],
        limits: Apps.Limits(maxDevicesPerUser: 5, sendsPerMinute: 600), allowedOrigins: ["https://retail.bank.example"],
        revision: 2,
        createdAt: Fixture.utc(2026, 11, 27, 9, 0, 0),
        updatedAt: Fixture.utc(2026, 11, 27, 10, 30, 0))

    @Test("apps.create {appId, displayName, credentials, limits?, allowedOrigins?} → the app, with fingerprints only")
    func create() throws {
        let params = try Fixture.params(Apps.Create.self, "apps.create")
        #expect(params.appId == "retail-ios")
        #expect(params.credentials.apns?.topic == "com.bank.retail")
        #expect(params.credentials.apns?.environment == "production")
        #expect(params.credentials.fcm?.serviceAccount.contains("bank-retail") == true)
        #expect(params.credentials.platforms == [.apns, .fcm])
        #expect(params.allowedOrigins == ["https://retail.bank.example"])
        #expect(
            params.limits
                == Apps.Limits(maxDevicesPerUser: 5, sendsPerMinute: 600, maxPayloadBytes: 4096, maxTTLSeconds: 86_400))
        #expect(try Fixture.result(Apps.Create.self, "apps.create") == Self.info)
    }

    @Test("apps.list {} → the environment's app first, then the database's")
    func list() throws {
        #expect(try Fixture.params(Apps.List.self, "apps.list") == Empty())
        let apps = try Fixture.result(Apps.List.self, "apps.list").apps
        #expect(apps.map(\.appId) == ["default", "retail-ios"])
        #expect(apps.first?.source == "environment")
        #expect(apps.first?.revision == nil)
        #expect(apps.last == Self.info)
    }

    @Test("apps.get {appId} → the app; apps.update, apps.rotateCredentials and apps.delete {appId, confirm}")
    func getUpdateRotateDelete() throws {
        #expect(try Fixture.params(Apps.Get.self, "apps.get") == Apps.Get.Params(appId: "retail-ios"))
        #expect(try Fixture.result(Apps.Get.self, "apps.get") == Self.info)
        #expect(
            try Fixture.result(Apps.Get.self, "apps.get", minimal: true)
                == Apps.AppInfo(appId: "default", displayName: "Default app (environment)", source: "environment"))
        #expect(
            try Fixture.params(Apps.Update.self, "apps.update")
                == Apps.Update.Params(
                    appId: "retail-ios", displayName: "Retail", limits: .init(maxDevicesPerUser: 10),
                    allowedOrigins: ["https://retail.bank.example", "https://app.bank.example"]))
        #expect(
            try Fixture.params(Apps.Update.self, "apps.update", minimal: true)
                == Apps.Update.Params(appId: "retail-ios"))
        #expect(try Fixture.result(Apps.Update.self, "apps.update") == Self.info)
        let rotate = try Fixture.params(Apps.RotateCredentials.self, "apps.rotateCredentials")
        #expect(rotate.credentials.platforms == [.apns])
        #expect(try Fixture.result(Apps.RotateCredentials.self, "apps.rotateCredentials") == Self.info)
        #expect(
            try Fixture.params(Apps.Delete.self, "apps.delete")
                == Apps.Delete.Params(appId: "retail-ios", confirm: "retail-ios"))
        #expect(try Fixture.result(Apps.Delete.self, "apps.delete") == Empty())
    }
}
