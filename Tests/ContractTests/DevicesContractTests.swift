import Foundation
import SharedModels
import Testing

@Suite("devices.* wire contract")
struct DevicesContractTests {
    static let phone = "9b2f8c3e-6a1d-4e7b-8c5f-2d3e4f5a6b7c"
    static let tablet = "1e2d3c4b-5a69-4788-97a6-b5c4d3e2f1a0"

    /// A P-256 public key as devices register it (base64url, X9.62 uncompressed).
    static let publicKey = "BGD-1LolWp0xyWHrdMY1bWjASbiSO2H6bOZpYi5g8p-2eQP-EAi4vJmkGunpVii8ZPLxsgwtfp9Rd6PClNRGIpk"

    @Test("devices.register {platform, token?, name?, apnsMode?, publicKey?, appId?} → {deviceId}")
    func register() throws {
        let full = try Fixture.params(Devices.Register.self, "devices.register")
        #expect(
            full
                == Devices.Register.Params(
                    platform: .apns, token: "740f4707bebcf74f9b7c25d48e3358945f6aa01da5ddb387462c7eaf61bb78ad",
                    name: "Ada's phone", apnsMode: "background", publicKey: Self.publicKey, appId: "retail-ios"))
        let minimal = try Fixture.params(Devices.Register.self, "devices.register", minimal: true)
        #expect(minimal.publicKey == nil && minimal.appId == nil)
        #expect(minimal == Devices.Register.Params(platform: .direct))
        #expect(
            try Fixture.result(Devices.Register.self, "devices.register")
                == Devices.Register.Result(deviceId: Self.phone, verification: "pending"))
        #expect(
            try Fixture.result(Devices.Register.self, "devices.register", minimal: true)
                == Devices.Register.Result(deviceId: Self.phone))
    }

    @Test("devices.verify {deviceId, challenge} → {deviceId}")
    func verify() throws {
        #expect(
            try Fixture.params(Devices.Verify.self, "devices.verify")
                == Devices.Verify.Params(deviceId: Self.phone, challenge: "q3Vb0zYQm2xJ8kT4fP1wLg"))
        #expect(
            try Fixture.result(Devices.Verify.self, "devices.verify") == Devices.Verify.Result(deviceId: Self.phone))
    }

    @Test("devices.webPushKey {appId?} → {vapidPublicKey}")
    func webPushKey() throws {
        #expect(
            try Fixture.params(Devices.WebPushKey.self, "devices.webPushKey")
                == Devices.WebPushKey.Params(appId: "retail-web"))
        #expect(
            try Fixture.params(Devices.WebPushKey.self, "devices.webPushKey", minimal: true)
                == Devices.WebPushKey.Params())
        #expect(
            try Fixture.result(Devices.WebPushKey.self, "devices.webPushKey")
                == Devices.WebPushKey.Result(vapidPublicKey: Self.publicKey))
    }

    @Test("devices.list {} → the caller's devices")
    func list() throws {
        #expect(try Fixture.params(Devices.List.self, "devices.list") == Empty())
        let full = try Fixture.result(Devices.List.self, "devices.list")
        #expect(
            full.devices == [
                Devices.DeviceInfo(
                    deviceId: Self.phone, platform: .apns, name: "Ada's phone",
                    createdAt: Fixture.utc(2026, 11, 20, 8, 15, 0),
                    active: true, apnsMode: "background", sealed: true, appId: "retail-ios"),
                Devices.DeviceInfo(
                    deviceId: Self.tablet, platform: .fcm, name: "Old tablet",
                    createdAt: Fixture.utc(2026, 10, 2, 19, 45, 12),
                    active: false, sealed: false, appId: "default"),
                Devices.DeviceInfo(
                    deviceId: "5d6e7f80-9a1b-4c2d-8e3f-4a5b6c7d8e9f", platform: .apns, name: "New phone",
                    createdAt: Fixture.utc(2026, 11, 26, 9, 30, 0), active: false, sealed: true,
                    verification: "pending", appId: "retail-ios"),
            ])
        let minimal = try Fixture.result(Devices.List.self, "devices.list", minimal: true)
        #expect(
            minimal.devices == [
                Devices.DeviceInfo(
                    deviceId: Self.phone, platform: .direct, createdAt: Fixture.utc(2026, 11, 20, 8, 15, 0))
            ])
    }

    @Test("devices.unregister {deviceId} → {}")
    func unregister() throws {
        #expect(try Fixture.params(Devices.Unregister.self, "devices.unregister").deviceId == Self.tablet)
        #expect(try Fixture.result(Devices.Unregister.self, "devices.unregister") == Empty())
    }

    @Test("devices.ack {deviceId, notificationId} → {}")
    func ack() throws {
        let params = try Fixture.params(Devices.Ack.self, "devices.ack")
        #expect(params == Devices.Ack.Params(deviceId: Self.phone, notificationId: StoreContractTests.notificationId))
        #expect(try Fixture.result(Devices.Ack.self, "devices.ack") == Empty())
    }

    @Test("platforms are open sets: an unknown platform survives a round trip")
    func unknownPlatform() throws {
        let data = Data(#"{"platform":"carrier-pigeon"}"#.utf8)
        let params = try RPCCodec.makeDecoder().decode(Devices.Register.Params.self, from: data)
        #expect(params.platform == Platform(rawValue: "carrier-pigeon"))
        #expect(try RPCCodec.makeEncoder().encode(params) == data)
    }

    @Test("devices.eraseUser {userId} → {erased, deviceIds}")
    func eraseUser() throws {
        #expect(
            try Fixture.params(Devices.EraseUser.self, "devices.eraseUser")
                == Devices.EraseUser.Params(userId: "4f3c2a1e-8b7d-4c6a-9e5f-0a1b2c3d4e5f"))
        let result = try Fixture.result(Devices.EraseUser.self, "devices.eraseUser")
        #expect(result.deviceIds.count == 2)
        #expect(result.erased["devices"] == 2)
        #expect(result.erased["sends"] == 3)
    }
}
