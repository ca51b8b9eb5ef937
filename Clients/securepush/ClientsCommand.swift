import ArgumentParser
import AuthService
import Foundation
import ServiceCore
import SharedModels

/// `securepush clients`: manage service clients (app backends) in auth's database.
struct ClientsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clients",
        abstract: "Manage service clients (app backends) in auth's database.",
        subcommands: [Create.self]
    )

    /// `securepush clients create --id billing --scope push:send [--app retail-ios …]`.
    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a client with chosen scopes; prints its secret once.",
            discussion:
                "Works on the auth database directly (SECUREPUSH_DATABASE_URL for PostgreSQL, else SECUREPUSH_DATA_DIR or --data-dir), while auth runs or not."
        )

        @Option(help: "client id") var id: String
        @Option(name: .customLong("scope"), help: "a scope to grant, e.g. push:send (repeatable)") var scopes: [String]
        @Option(
            name: .customLong("app"), help: "an app this client may send for (repeatable; none: the default app)")
        var apps: [String] = []
        @Option(help: "the secret (default: a random 256-bit one)") var secret: String?
        @OptionGroup var database: AuthDatabaseOptions

        /// The option behind each field auth's `-32602` names.
        static let flags = ["clientId": "--id", "scopes": "--scope", "apps": "--app", "secret": "--secret"]

        func run() async throws {
            let hint = "choose another --id; a client's secret is shown only once"
            let credentials = try await ClientRegistry.with(
                configuration: try database.configuration(), logger: cliLogger()
            ) { registry in
                try await database.reportingAuthErrors(conflictHint: hint, flags: Self.flags) {
                    try await registry.createClient(id: id, scopes: scopes, apps: apps, secret: secret)
                }
            }
            await CLIAudit.record(
                "auth.client.created",
                ["client": .text(credentials.clientId), "scopes": .texts(scopes), "apps": .texts(apps)], in: .auth,
                dataDir: database.dataDir)
            let forApps = apps.isEmpty ? "" : " for apps \(apps.joined(separator: " "))"
            print("created client '\(credentials.clientId)' with scopes \(scopes.joined(separator: " "))\(forApps)")
            print("secret: \(credentials.secret)")
            print("(shown once: auth keeps only its bcrypt hash)")
        }
    }
}
