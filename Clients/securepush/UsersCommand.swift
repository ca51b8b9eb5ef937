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
        subcommands: [Create.self, Delete.self]
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
            await CLIAudit.record(
                "auth.register", ["user": .user(userID), "username": .username(username, owner: userID)], in: .auth,
                dataDir: database.dataDir)
            print("created user '\(username)': user id \(userID)")
        }
    }

    /// `securepush users delete --username alice`: erase a person everywhere (`users.delete`).
    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Erase a user and everything about them in every service (users.delete).",
            discussion: """
                Calls auth's users.delete as a backend client holding scope users:delete (create one with \
                `securepush clients create --scope users:delete`); auth erases the account, then push-dispatch's and \
                the store's copies. Prints what each service erased. Idempotent: repeating it prints the first result.
                """
        )

        @Option(help: "the user's username") var username: String?
        @Option(help: "the user's id, instead of --username") var userId: String?
        @OptionGroup var client: BackendClientOptions
        @OptionGroup var endpoints: EndpointOptions

        func validate() throws {
            guard (username == nil) != (userId == nil) else {
                throw ValidationError("pass exactly one of --username and --user-id")
            }
        }

        func run() async throws {
            let result = try await client.withBackend(endpoints) {
                try await $0.deleteUser(.init(userId: userId, username: username))
            }
            print("erased \(username.map { "'\($0)'" } ?? userId ?? ""): erasure \(result.erasureId)")
            for service in ["auth", "push-dispatch", "notification-store"] {
                let counts = (result.services[service] ?? [:]).sorted { $0.key < $1.key }
                print("  \(service): " + counts.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
            }
        }
    }
}
