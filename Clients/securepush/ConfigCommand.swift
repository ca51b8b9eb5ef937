import ArgumentParser
import Foundation
import ServiceCore

/// `securepush config`: the settings SecurePush reads, from the one place they are declared.
struct ConfigCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Show the settings SecurePush reads.",
        subcommands: [Docs.self, Check.self]
    )

    /// `securepush config docs`: prints `docs/configuration.md`.
    struct Docs: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print docs/configuration.md (every setting, its default and meaning) as Markdown.")

        func run() async throws {
            print(SettingCatalog.markdown(), terminator: "")
        }
    }

    /// `securepush config check`: names the `SECUREPUSH_*` variables set here that no setting declares.
    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Name every SECUREPUSH_* variable set in this environment that SecurePush does not read.",
            discussion: "Exits 1 when there is one (a service warns about it at start, and refuses it in production)."
        )

        func run() async throws {
            let unknown = SettingCatalog.undeclared(in: ProcessInfo.processInfo.environment)
            guard !unknown.isEmpty else {
                print("every SECUREPUSH_* variable set here is a setting")
                return
            }
            let named = unknown.map { name in
                SettingCatalog.nearest(to: name).map { "\(name) (did you mean \($0)?)" } ?? name
            }
            throw CLIError(
                "not a setting: \(named.joined(separator: ", "))",
                hint: "`securepush config docs` lists every setting", exitCode: .refused)
        }
    }
}
