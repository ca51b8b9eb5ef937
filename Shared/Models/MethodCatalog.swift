/// Every method name each service serves, for checks that clients and servers agree.
public enum MethodCatalog {
    /// Methods the auth service serves.
    public static let auth: Set<String> = [
        Auth.Register.name, Auth.Login.name, Auth.Refresh.name, Auth.Logout.name, Auth.ClientToken.name, Auth.Keys.name,
        Auth.RevokedSessions.name,
        Auth.LookupUser.name, Auth.LookupUsers.name, Auth.AuditKeys.name, Users.Delete.name,
    ]
    /// Methods the notification store serves.
    public static let store: Set<String> = [
        Store.Put.name, Store.Get.name, Store.List.name, Store.MarkRead.name, Store.Delete.name, Store.Receipts.name,
        Store.RevokeDevices.name, Store.PutMany.name, Store.Publish.name, Store.Discard.name,
        Store.ReceiptsSince.name, Store.EraseUser.name,
    ]
    /// Methods push-dispatch serves.
    public static let dispatch: Set<String> = [
        Devices.Register.name, Devices.List.name, Devices.Unregister.name, Devices.Ack.name, Devices.Verify.name,
        Devices.WebPushKey.name, Devices.EraseUser.name,
        Push.Send.name, Push.Status.name, Push.Cancel.name,
        Apps.Create.name, Apps.List.name, Apps.Get.name, Apps.Update.name, Apps.RotateCredentials.name,
        Apps.Delete.name,
        Webhooks.Create.name, Webhooks.List.name, Webhooks.Delete.name, Webhooks.Test.name,
        Webhooks.RotateSecret.name, Webhooks.Replay.name,
    ]
}
