import ArgumentParser
import AuthService
import Foundation
import ServiceCore
import SharedModels

/// `securepush users`: manage people's accounts in auth's database (when self-registration is closed).
struct UsersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users",
        abstract: "Manage user accounts in auth's database (e.g. with SECUREPUSH_SELF_REGISTRATION=false).",
        subcommands: [Create.self]
    )

    /// `securepush users create --username alice` (password from --password, SECUREPUSH_PASSWORD or the prompt).
    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a user account; prints its user id.",
            discussion:
                "Works on the auth database directly (SECUREPUSH_DATABASE_URL for PostgreSQL, else SECUREPUSH_DATA_DIR or --data-dir), while auth runs or not."
        )

        @Option(help: "3–64 characters of a-z 0-9 . _ -") var username: String
        @Option(help: "8–72 bytes (or SECUREPUSH_PASSWORD, or typed at the prompt)") var password: String?
        @OptionGroup var database: AuthDatabaseOptions

        func run() async throws {
            let configuration = try database.configuration()
            let secret = try readPassword(flag: password)
            let userID = try await AccountRegistry.with(configuration: configuration, logger: cliLogger()) { accounts in
                try await database.reportingAuthErrors(conflictHint: "choose another --username") {
                    try await accounts.createUser(username: username, password: secret)
                }
            }
            print("created user '\(username)': user id \(userID)")
        }
    }
}
