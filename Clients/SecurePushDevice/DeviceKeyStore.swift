/// Where a device keeps its ``DeviceKey`` between runs: a file (`FileDeviceKeyStore` in `SecurePushClient`, what the
/// CLI uses), or on Apple platforms the keychain shared with a Notification Service Extension.
public protocol DeviceKeyStore: Sendable {
    /// The key kept, or a new one kept from now on when there is none. Two processes asking at once get the same key.
    /// For the app, which registers the key.
    func loadOrCreate() throws -> DeviceKey

    /// The key kept; `nil` when there is none. For the extension: a key it made itself would be registered nowhere.
    func load() throws -> DeviceKey?
}
