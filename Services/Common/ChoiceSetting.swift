/// A setting that takes one of a few names (matched ignoring case), declared with its default in ``SettingCatalog``:
/// ``ServiceEnvironment/choice(_:)`` reads it and refuses anything else with one message shape for all of them,
/// `docs/configuration.md` lists exactly the names it accepts.
public struct ChoiceSetting: Sendable {
    /// The declaration (its documented default and meaning are made from ``defaultName`` and ``names``).
    public let setting: Setting
    /// The name used when the variable is unset (or empty); one of ``names``.
    public let defaultName: String
    /// The accepted names, lowercase, in documented order.
    public let names: [String]
    /// Said after a refusal, in parentheses: why the value matters.
    public let note: String?

    public init(
        _ name: String, group: Setting.Group, default defaultName: String, names: [String], usedBy: String,
        note: String? = nil, _ summary: String
    ) {
        precondition(names.contains(defaultName), "\(name)'s default '\(defaultName)' is not one of \(names)")
        precondition(names.allSatisfy { $0 == $0.lowercased() }, "\(name)'s names are matched lowercased")
        self.defaultName = defaultName
        self.names = names
        self.note = note
        let accepted = names.map { "`\($0)`" }.joined(separator: ", ")
        self.setting = Setting(
            name, group: group, default: "`\(defaultName)`", usedBy: usedBy, "\(summary); accepted: \(accepted)")
    }

    /// The names of a yes/no setting (``ServiceEnvironment/flag(_:)``), in pairs: the first of each means yes.
    public static let flagNames = ["true", "false", "yes", "no", "1", "0"]

    /// What a refusal says the setting must be: `'a' or 'b'`, or `one of a, b, c`.
    var accepted: String {
        names.count == 2 ? "'\(names[0])' or '\(names[1])'" : "one of \(names.joined(separator: ", "))"
    }
}
