import Logging

extension SettingCatalog {
    /// The setting called `name`, if one is declared.
    public static func setting(named name: String) -> Setting? { byName[name] }

    private static let byName: [String: Setting] = Dictionary(all.map { ($0.name, $0) }) { first, _ in first }

    /// The `SECUREPUSH_*` variables set (non-empty or not) in `environment` that no setting declares, sorted.
    public static func undeclared(in environment: [String: String]) -> [String] {
        environment.keys.filter { $0.hasPrefix("SECUREPUSH_") && byName[$0] == nil }.sorted()
    }

    /// Warns once per undeclared `SECUREPUSH_*` variable (`config.undeclared_variable`, naming it and the nearest
    /// declared name); in production (`SECUREPUSH_ENV=production`) throws instead: a misspelt setting would otherwise
    /// leave its default in force unnoticed.
    public static func checkDeclared(_ environment: ServiceEnvironment, logger: Logger) throws {
        let unknown = undeclared(in: environment.values)
        guard !unknown.isEmpty else { return }
        if environment.isProduction {
            let named = unknown.map { name in nearest(to: name).map { "\(name) (did you mean \($0)?)" } ?? name }
            throw ConfigurationError(
                "\(named.joined(separator: ", ")) \(unknown.count == 1 ? "is" : "are") not a SecurePush setting "
                    + "(docs/configuration.md lists them all)")
        }
        for name in unknown {
            var metadata: Logger.Metadata = ["config.variable": "\(name)"]
            if let nearest = nearest(to: name) { metadata["config.did_you_mean"] = "\(nearest)" }
            logger.warning("config.undeclared_variable", metadata: metadata)
        }
    }

    /// The declared `SECUREPUSH_*` name closest to `name` (edit distance at most 3), if any.
    public static func nearest(to name: String) -> String? {
        let candidates = all.map(\.name).filter { $0.hasPrefix("SECUREPUSH_") }
        let scored = candidates.map { ($0, distance(Array(name.utf8), Array($0.utf8))) }
        guard let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= 3 else { return nil }
        return best.0
    }

    /// Levenshtein distance of two byte strings.
    private static func distance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = Swift.min(
                    previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
