import Foundation
import Logging
import ServiceCore
import TestSupport
import Testing

/// Issue 25: every setting is declared once, in ``SettingCatalog``; `docs/configuration.md` is generated from it, and a
/// set variable that no setting declares is a warning (a refusal in production).
@Suite("Settings declared once")
struct SettingCatalogTests {
    static let root = RepositorySources.root

    /// Everything in `directories` (by default all that read variables), but not the catalog itself (which names
    /// them all).
    static func sources(in directories: [String] = RepositorySources.everywhere) -> String {
        RepositorySources.text(in: directories, excluding: ["SettingCatalog.swift", "SettingCatalogTests.swift"])
    }

    @Test("docs/configuration.md is what `securepush config docs` prints (regenerate it after changing a setting)")
    func generatedDocs() throws {
        let committed = try String(
            contentsOf: Self.root.appendingPathComponent("docs/configuration.md"), encoding: .utf8)
        #expect(
            committed == SettingCatalog.markdown(),
            "run: swift run securepush config docs > docs/configuration.md")
    }

    @Test("every SECUREPUSH_ name the services, the CLI and the shared code read is declared")
    func everyReadNameDeclared() throws {
        var undeclared: Set<String> = []
        for directory in ["Services", "Shared", "Clients"] {
            let walker = try #require(
                FileManager.default.enumerator(atPath: Self.root.appendingPathComponent(directory).path))
            for case let path as String in walker where path.hasSuffix(".swift") {
                let text = try String(
                    contentsOf: Self.root.appendingPathComponent(directory + "/" + path), encoding: .utf8)
                for match in text.matches(of: /"(SECUREPUSH_[A-Z0-9_]*[A-Z0-9])"/) {
                    let name = String(match.output.1)
                    // A family's prefix (`"SECUREPUSH_BOOTSTRAP_CLIENT"` + `_ID`) counts when a member is declared.
                    let declared =
                        SettingCatalog.setting(named: name) != nil
                        || SettingCatalog.all.contains { $0.name.hasPrefix(name + "_") }
                    if !declared { undeclared.insert("\(directory)/\(path): \(name)") }
                }
            }
        }
        #expect(undeclared.sorted() == [], "read but not declared in SettingCatalog")
    }

    @Test("every declared SECUREPUSH_ setting is read somewhere, and none is declared twice")
    func everyDeclaredNameRead() throws {
        let sources = Self.sources()
        try #require(sources.count > 100_000)
        let names = SettingCatalog.all.map(\.name)
        #expect(Set(names).count == names.count, "declared twice")
        let quoted = Set(sources.matches(of: /"(SECUREPUSH_[A-Z0-9_]*[A-Z0-9])"/).map { String($0.output.1) })
        var unread: [String] = []
        for name in names where name.hasPrefix("SECUREPUSH_") {
            if sources.contains(name) { continue }
            // Read under a name made at run time: a secret's `_FILE` variant, a family member, a platform's override.
            if name.hasSuffix("_FILE"), sources.contains("\"" + name.dropLast("_FILE".count)) { continue }
            if name.hasSuffix("_CONCURRENCY"), sources.contains("uppercased())_CONCURRENCY\"") { continue }
            if quoted.contains(where: { name.hasPrefix($0 + "_") }) { continue }
            unread.append(name)
        }
        #expect(unread == [], "declared, read nowhere")

        // A typed declaration is read through its static, not by its name: the static itself must be used.
        let catalog = try String(
            contentsOf: Self.root.appendingPathComponent("Services/Common/SettingCatalog.swift"), encoding: .utf8)
        let statics = catalog.matches(of: /public static let (\w+) = (?:Integer|Choice|Text)Setting\(/).map {
            String($0.output.1)
        }
        try #require(statics.count > 50)
        let programs = Self.sources(in: ["Services", "Shared", "Clients"])
        // Code, not comments, and the whole name (`maxConnections` is not used by `maxConnectionsPerAddress`).
        let code = programs.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }
            .joined(separator: "\n")
        let used = Set(code.matches(of: /SettingCatalog\.(\w+)/).map { String($0.output.1) })
        #expect(statics.filter { !used.contains($0) } == [], "declared, its static used by no program")
    }

    @Test("a set variable that is not a setting: undeclared, with the nearest setting's name")
    func undeclared() {
        let environment = [
            "SECUREPUSH_MAX_BATH": "3", "SECUREPUSH_MAX_BATCH": "3", "SECUREPUSH_ZZZ_NOTHING_LIKE_IT": "1",
            "HOME": "/root",
        ]
        #expect(
            SettingCatalog.undeclared(in: environment) == ["SECUREPUSH_MAX_BATH", "SECUREPUSH_ZZZ_NOTHING_LIKE_IT"])
        #expect(SettingCatalog.nearest(to: "SECUREPUSH_MAX_BATH") == "SECUREPUSH_MAX_BATCH")
        #expect(SettingCatalog.nearest(to: "SECUREPUSH_ZZZ_NOTHING_LIKE_IT") == nil)
        #expect(SettingCatalog.undeclared(in: ["SECUREPUSH_ENV": "production", "OTEL_SERVICE_NAME": "x"]) == [])
    }

    @Test("in development an undeclared variable is a warning naming it; in production it refuses to start")
    func checkDeclared() throws {
        let log = RecordedLog()
        let logger = log.logger(label: "test.settings")
        try SettingCatalog.checkDeclared(ServiceEnvironment(["SECUREPUSH_MAX_BATH": "3"]), logger: logger)
        #expect(
            log.all.map {
                "\($0.level) \($0.message) \($0.metadata["config.variable"] ?? "-") "
                    + "\($0.metadata["config.did_you_mean"] ?? "-")"
            } == ["warning config.undeclared_variable SECUREPUSH_MAX_BATH SECUREPUSH_MAX_BATCH"])
        try SettingCatalog.checkDeclared(ServiceEnvironment(["SECUREPUSH_MAX_BATCH": "3"]), logger: logger)
        #expect(log.all.count == 1)

        let error = try #require(throws: ConfigurationError.self) {
            try SettingCatalog.checkDeclared(
                ServiceEnvironment(["SECUREPUSH_ENV": "production", "SECUREPUSH_MAX_BATH": "3"]), logger: logger)
        }
        #expect(
            error.description
                == "SECUREPUSH_MAX_BATH (did you mean SECUREPUSH_MAX_BATCH?) is not a SecurePush setting "
                + "(docs/configuration.md lists them all)")
    }
}

extension SettingCatalogTests {
    static let serverSettings = [
        SettingCatalog.maxBodyBytes, SettingCatalog.maxBatch, SettingCatalog.idleTimeout,
        SettingCatalog.handshakeTimeout, SettingCatalog.requestTimeout, SettingCatalog.maxConnections,
        SettingCatalog.maxConnectionsPerAddress, SettingCatalog.shutdownTimeout,
    ]

    @Test("the listener's settings are read with the defaults and ranges the catalog declares (and documents)")
    func serverSettingsFromCatalog() throws {
        let server = try ServiceEnvironment([:]).server(port: SettingCatalog.authPort)
        #expect(server.maxBodyBytes == SettingCatalog.maxBodyBytes.defaultValue)
        #expect(server.maxBatchLength == SettingCatalog.maxBatch.defaultValue)
        #expect(server.idleTimeout == .seconds(SettingCatalog.idleTimeout.defaultValue))
        #expect(server.handshakeTimeout == .seconds(SettingCatalog.handshakeTimeout.defaultValue))
        #expect(server.requestTimeout == .seconds(SettingCatalog.requestTimeout.defaultValue))
        #expect(server.maxConnections == SettingCatalog.maxConnections.defaultValue)
        #expect(server.maxConnectionsPerAddress == SettingCatalog.maxConnectionsPerAddress.defaultValue)
        #expect(server.shutdownTimeout == .seconds(SettingCatalog.shutdownTimeout.defaultValue))
        let docs = SettingCatalog.markdown()
        for integer in Self.serverSettings {
            #expect(SettingCatalog.all.contains(integer.setting))
            #expect(docs.contains("accepted: \(integer.range.lowerBound)–\(integer.range.upperBound)"))
            // Both ends of the range start; one past either end is refused, naming the variable.
            for value in [integer.range.lowerBound, integer.range.upperBound] {
                #expect(try ServiceEnvironment([integer.setting.name: "\(value)"]).int(integer) == value)
            }
            for value in [integer.range.lowerBound - 1, integer.range.upperBound + 1] {
                let error = try #require(throws: ConfigurationError.self) {
                    try ServiceEnvironment([integer.setting.name: "\(value)"]).server(
                        port: SettingCatalog.authPort)
                }
                #expect(error.description.hasPrefix(integer.setting.name))
            }
        }
    }
}

extension SettingCatalogTests {
    @Test("a choice is read ignoring case, its default when unset, and a refusal names the variable and every choice")
    func choices() throws {
        let empty = ServiceEnvironment([:])
        #expect(try empty.choice(SettingCatalog.sqliteSynchronous, as: SQLiteSynchronous.self) == .normal)
        #expect(try empty.forwardedHeader() == .xForwardedFor)
        #expect(try empty.metricsEnabled())
        let set = ServiceEnvironment([
            "SECUREPUSH_SQLITE_SYNCHRONOUS": "FULL", "SECUREPUSH_METRICS": "Off",
            "SECUREPUSH_FORWARDED_HEADER": "forwarded",
        ])
        #expect(try set.choice(SettingCatalog.sqliteSynchronous, as: SQLiteSynchronous.self) == .full)
        #expect(try !set.metricsEnabled())
        #expect(try set.forwardedHeader() == .forwarded)

        let two = try #require(throws: ConfigurationError.self) {
            try ServiceEnvironment(["SECUREPUSH_FORWARDED_HEADER": "x-real-ip"]).forwardedHeader()
        }
        #expect(
            two.description
                == "SECUREPUSH_FORWARDED_HEADER must be 'x-forwarded-for' or 'forwarded', got 'x-real-ip' "
                + "(the header your proxy writes)")
        let many = try #require(throws: ConfigurationError.self) {
            try ServiceEnvironment(["SECUREPUSH_WEBPUSH_URGENCY": "urgent"]).choice(SettingCatalog.webPushUrgency)
        }
        #expect(
            many.description == "SECUREPUSH_WEBPUSH_URGENCY must be one of very-low, low, normal, high, got 'urgent'")
        let long = try #require(throws: ConfigurationError.self) {
            try ServiceEnvironment(["SECUREPUSH_METRICS": String(repeating: "x", count: 10_000)]).metricsEnabled()
        }
        #expect(long.description.count < 200)
        let docs = SettingCatalog.markdown()
        #expect(docs.contains("accepted: `very-low`, `low`, `normal`, `high`"))
    }

    @Test("a text setting is its value, else its declared default, which the docs show")
    func texts() {
        #expect(ServiceEnvironment([:]).dataDirectory == "./.securepush")
        #expect(ServiceEnvironment(["SECUREPUSH_DATA_DIR": ""]).dataDirectory == "./.securepush")
        #expect(ServiceEnvironment(["SECUREPUSH_DATA_DIR": "/var/lib/sp"]).dataDirectory == "/var/lib/sp")
        #expect(ServiceEnvironment([:]).string(SettingCatalog.authURL) == "http://127.0.0.1:8081")
        #expect(ServiceEnvironment([:]).string(SettingCatalog.host) == "127.0.0.1")
        #expect(SettingCatalog.markdown().contains("| `SECUREPUSH_HOST` | `127.0.0.1` |"))
    }
}
