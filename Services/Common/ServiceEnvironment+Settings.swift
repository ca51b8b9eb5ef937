extension ServiceEnvironment {
    /// `SECUREPUSH_DEFAULT_TTL`: the lifetime of a notification sent without `ttlSeconds`, in seconds, at most
    /// `SECUREPUSH_MAX_TTL` (the store keeps it; push-dispatch bounds it by an app's own longest lifetime).
    public func defaultTTL() throws -> Int {
        let maxTTL = try int(SettingCatalog.maxTTL)
        return try int("SECUREPUSH_DEFAULT_TTL", default: min(604_800, maxTTL), in: 1...maxTTL)
    }

    /// A declared text setting: its value, else its default (`nil` when it has none).
    public func string(_ setting: TextSetting) -> String? {
        string(setting.setting.name) ?? setting.defaultValue
    }

    /// A declared choice: the name set (lowercased), else the default; throws, naming the variable and the accepted
    /// names, for anything else.
    public func choice(_ setting: ChoiceSetting) throws -> String {
        guard let raw = string(setting.setting.name) else { return setting.defaultName }
        guard setting.names.contains(raw.lowercased()) else {
            let note = setting.note.map { " (\($0))" } ?? ""
            throw ConfigurationError(
                "\(setting.setting.name) must be \(setting.accepted), got '\(raw.prefix(64))'\(note)")
        }
        return raw.lowercased()
    }

    /// A declared yes/no choice (names ``ChoiceSetting/flagNames``): `true` for `true`, `yes` or `1`.
    public func flag(_ setting: ChoiceSetting) throws -> Bool {
        precondition(setting.names == ChoiceSetting.flagNames, "\(setting.setting.name) is not a yes/no setting")
        let name = try choice(setting)
        return ChoiceSetting.flagNames.firstIndex(of: name)!.isMultiple(of: 2)
    }

    /// A declared choice read as `Value`, whose cases must be exactly the setting's names (checked on every read, so a
    /// test of the configuration that reads it catches a case added to one and not the other).
    public func choice<Value: RawRepresentable & CaseIterable>(_ setting: ChoiceSetting, as type: Value.Type) throws
        -> Value
    where Value.RawValue == String {
        let cases = Value.allCases.map(\.rawValue)
        precondition(
            Set(cases) == Set(setting.names),
            "\(setting.setting.name) declares \(setting.names), \(Value.self) has \(cases)")
        return Value(rawValue: try choice(setting))!
    }
}
