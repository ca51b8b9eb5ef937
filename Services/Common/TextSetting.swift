/// A setting read as text (a path, a URL, a host, a message), declared with its default in ``SettingCatalog`` so that
/// ``ServiceEnvironment/string(_:)-(TextSetting)`` and `docs/configuration.md` use the same one.
public struct TextSetting: Sendable {
    /// The declaration.
    public let setting: Setting
    /// The value used when the variable is unset (or empty); `nil`: none.
    public let defaultValue: String?

    public init(
        _ name: String, group: Setting.Group, default defaultValue: String?, usedBy: String, isSecret: Bool = false,
        _ summary: String
    ) {
        self.defaultValue = defaultValue
        self.setting = Setting(
            name, group: group, default: defaultValue.map { "`\($0)`" } ?? "unset", usedBy: usedBy, isSecret: isSecret,
            summary)
    }
}
