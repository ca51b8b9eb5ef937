/// A whole-number setting declared with its default and the values it accepts, so that the one declaration in
/// ``SettingCatalog`` is also what ``ServiceEnvironment/int(_:)`` and ``ServiceEnvironment/seconds(_:)`` read with:
/// the default and range are written once, and `docs/configuration.md` shows exactly them.
public struct IntegerSetting: Sendable {
    /// The declaration (its documented default and meaning are made from ``defaultValue`` and ``range``).
    public let setting: Setting
    /// The value used when the variable is unset (or empty).
    public let defaultValue: Int
    /// The values accepted; anything else refuses to start, naming the variable.
    public let range: ClosedRange<Int>

    /// - Parameter unit: appended to the documented default and range (`s` for seconds).
    public init(
        _ name: String, group: Setting.Group, default defaultValue: Int, in range: ClosedRange<Int>,
        unit: String = "", usedBy: String, _ summary: String
    ) {
        self.defaultValue = defaultValue
        self.range = range
        let accepted = "\(range.lowerBound)–\(range.upperBound)\(unit)"
        self.setting = Setting(
            name, group: group, default: "\(defaultValue)\(unit)", usedBy: usedBy, "\(summary); accepted: \(accepted)")
    }
}
