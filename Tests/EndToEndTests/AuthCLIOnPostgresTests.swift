import AuthService
import Foundation
import Logging
import ServiceCore
import TestSupport
import Testing

/// `securepush clients create` and `users create` write where auth reads: PostgreSQL when
/// `SECUREPUSH_DATABASE_URL` names it.
@Suite(
    "Auth's CLI commands on PostgreSQL",
    .enabled(if: TestPostgres.isConfigured, Comment(rawValue: TestPostgres.skipNotice)))
struct AuthCLIOnPostgresTests {
    @Test("with SECUREPUSH_DATABASE_URL set, `clients create` and `users create` write to PostgreSQL, not to SQLite")
    func commandsUsePostgres() async throws {
        let base = try #require(TestPostgres.url)
        let schema = "cli_\(UUID().uuidString.prefix(8).lowercased())"
        let urlString = base + (base.contains("?") ? "&" : "?") + "schema=\(schema)"
        let dataDirectory = TemporaryDirectory.processRootURL.appendingPathComponent(
            "securepush-cli-pg-\(UUID().uuidString)"
        ).path
        defer { try? FileManager.default.removeItem(atPath: dataDirectory) }
        let environment = ["SECUREPUSH_DATABASE_URL": urlString, "SECUREPUSH_DATA_DIR": dataDirectory]
        let secret = "billing-secret-\(UUID().uuidString)"

        let madeClient = try await ClosedRegistrationEndToEndTests.securepush(
            [
                "clients", "create", "--id", "billing", "--scope", "push:send", "--app", "retail-ios", "--secret",
                secret,
            ],
            environment: environment)
        let madeUser = try await ClosedRegistrationEndToEndTests.securepush(
            ["users", "create", "--username", "alice", "--password", "correct horse"], environment: environment)
        #expect(madeClient == 0)
        #expect(madeUser == 0)
        #expect(!FileManager.default.fileExists(atPath: AuthConfiguration.databasePath(inDataDirectory: dataDirectory)))

        // What auth on that database sees: the client authenticates with its scopes and app, the account exists.
        try await TestPostgres.withDatabase(
            serviceName: "auth", migrations: AuthMigrations.all.postgres, url: try PostgresURL(urlString)
        ) { database in
            let repository = SQLAuthRepository(database: PostgresSQLDatabase(database))
            let clients = ClientRegistry(
                repository: repository, hasher: try await PasswordHasher(cost: 10), minimumSecretLength: 16)
            #expect(
                try await clients.grant(clientId: "billing", secret: secret)
                    == .init(scopes: ["push:send"], apps: ["retail-ios"]))
            #expect(try await repository.user(named: "alice") != nil)
        }
    }
}
