import SharedModels
import Testing

/// One method of the wire contract: its type, the fixtures that pin it, and how to round-trip them.
struct MethodContract: Sendable, CustomStringConvertible {
    /// `M.name`.
    let methodName: String
    /// The name its fixture files start with, written out literally.
    let fixture: String
    /// Whether a `.minimal.params.json` with every optional param absent exists.
    let minimalParams: Bool
    /// Whether a `.minimal.result.json` with every optional field absent exists.
    let minimalResult: Bool
    /// Round-trips a params fixture through `M.Params`.
    let roundTripParams: @Sendable (String) throws -> Void
    /// Round-trips a result fixture through `M.Result`.
    let roundTripResult: @Sendable (String) throws -> Void

    init<M: RPCMethod>(_ method: M.Type, fixture: String, minimalParams: Bool = false, minimalResult: Bool = false) {
        methodName = M.name
        self.fixture = fixture
        self.minimalParams = minimalParams
        self.minimalResult = minimalResult
        roundTripParams = { try Fixture.roundTrip(M.Params.self, $0) }
        roundTripResult = { try Fixture.roundTrip(M.Result.self, $0) }
    }

    /// The fixture files this method owns, without `.json`.
    var fixtureFiles: [String] {
        ["\(fixture).params", "\(fixture).result"]
            + (minimalParams ? ["\(fixture).minimal.params"] : [])
            + (minimalResult ? ["\(fixture).minimal.result"] : [])
    }

    var description: String { fixture }

    /// Every RPC method type in `Shared/Models`.
    static let all: [MethodContract] = [
        MethodContract(Auth.Register.self, fixture: "auth.register"),
        MethodContract(Auth.Login.self, fixture: "auth.login"),
        MethodContract(Auth.Refresh.self, fixture: "auth.refresh"),
        MethodContract(Auth.Logout.self, fixture: "auth.logout"),
        MethodContract(Auth.ClientToken.self, fixture: "auth.clientToken"),
        MethodContract(Auth.Keys.self, fixture: "auth.keys"),
        MethodContract(Auth.RevokedSessions.self, fixture: "auth.revokedSessions", minimalParams: true),
        MethodContract(Auth.LookupUser.self, fixture: "auth.lookupUser", minimalParams: true),
        MethodContract(Auth.LookupUsers.self, fixture: "auth.lookupUsers"),
        MethodContract(Auth.AuditKeys.self, fixture: "auth.auditKeys"),
        MethodContract(Users.Delete.self, fixture: "users.delete", minimalParams: true),
        MethodContract(Store.Put.self, fixture: "store.put", minimalParams: true),
        MethodContract(Store.PutMany.self, fixture: "store.putMany"),
        MethodContract(Store.Publish.self, fixture: "store.publish"),
        MethodContract(Store.Discard.self, fixture: "store.discard"),
        MethodContract(Store.Get.self, fixture: "store.get", minimalResult: true),
        MethodContract(Store.List.self, fixture: "store.list", minimalParams: true, minimalResult: true),
        MethodContract(Store.MarkRead.self, fixture: "store.markRead"),
        MethodContract(Store.Delete.self, fixture: "store.delete"),
        MethodContract(Store.Receipts.self, fixture: "store.receipts"),
        MethodContract(Store.ReceiptsSince.self, fixture: "store.receiptsSince", minimalParams: true),
        MethodContract(Store.EraseUser.self, fixture: "store.eraseUser", minimalParams: true),
        MethodContract(Store.RevokeDevices.self, fixture: "store.revokeDevices", minimalParams: true),
        MethodContract(Devices.Register.self, fixture: "devices.register", minimalParams: true, minimalResult: true),
        MethodContract(Devices.List.self, fixture: "devices.list", minimalResult: true),
        MethodContract(Devices.Unregister.self, fixture: "devices.unregister"),
        MethodContract(Devices.Ack.self, fixture: "devices.ack"),
        MethodContract(Devices.Verify.self, fixture: "devices.verify"),
        MethodContract(Devices.WebPushKey.self, fixture: "devices.webPushKey", minimalParams: true),
        MethodContract(Devices.EraseUser.self, fixture: "devices.eraseUser"),
        MethodContract(Push.Send.self, fixture: "push.send", minimalParams: true),
        MethodContract(Apps.Create.self, fixture: "apps.create"),
        MethodContract(Apps.List.self, fixture: "apps.list"),
        MethodContract(Apps.Get.self, fixture: "apps.get", minimalResult: true),
        MethodContract(Apps.Update.self, fixture: "apps.update", minimalParams: true),
        MethodContract(Apps.RotateCredentials.self, fixture: "apps.rotateCredentials"),
        MethodContract(Apps.Delete.self, fixture: "apps.delete"),
        MethodContract(Webhooks.Create.self, fixture: "webhooks.create", minimalParams: true),
        MethodContract(Webhooks.List.self, fixture: "webhooks.list"),
        MethodContract(Webhooks.Delete.self, fixture: "webhooks.delete"),
        MethodContract(Webhooks.Test.self, fixture: "webhooks.test"),
        MethodContract(Webhooks.RotateSecret.self, fixture: "webhooks.rotateSecret"),
        MethodContract(Webhooks.Replay.self, fixture: "webhooks.replay"),
        MethodContract(Push.Status.self, fixture: "push.status", minimalResult: true),
        MethodContract(Push.Cancel.self, fixture: "push.cancel"),
        MethodContract(Push.Notify.self, fixture: "push.notify"),
    ]
}
