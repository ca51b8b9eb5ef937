extension SettingCatalog {
    /// `docs/configuration.md`: every setting, one table per ``Setting/Group``. Generated (`securepush config docs`);
    /// a test fails when the committed copy differs.
    public static func markdown() -> String {
        var text = """
            # Configuration

            <!-- Generated from Services/Common/SettingCatalog.swift by `securepush config docs`; do not edit. -->

            Every SecurePush program is configured by environment variables, all listed here. A service warns at start
            about a set `SECUREPUSH_*` variable that is not listed (`config.undeclared_variable`, with the nearest
            listed name), and refuses to start with one in production (`SECUREPUSH_ENV=production`): a misspelt
            setting must not leave its default in force unnoticed. An empty value counts as unset. Secrets are better
            passed as files where a `_FILE` variant exists.

            """
        for group in Setting.Group.allCases {
            let settings = all.filter { $0.group == group }
            guard !settings.isEmpty else { continue }
            text += "\n## \(group.title)\n\n| variable | default | used by | meaning |\n|---|---|---|---|\n"
            for setting in settings {
                let secret = setting.isSecret ? " (a secret)" : ""
                text +=
                    "| `\(setting.name)` | \(setting.defaultValue) | \(setting.usedBy) | \(setting.summary)\(secret) |\n"
            }
        }
        return text
    }
}
