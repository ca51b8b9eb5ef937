import AuthService
import Foundation
import ServiceCore
import SharedModels
import TestSupport
import Testing

/// `v5 client apps`: a client stored before it (schema `v4`) still gets tokens after it, bound to no app.
@Suite("auth's migration adding client apps")
struct ClientAppsMigrationTests {
    static let client = ClientRegistry.Credentials(clientId: "billing", secret: "billing-secret-value")

    /// Stores ``client`` as the repository did at `v4`: no `apps` column.
    static func insertV4Client(_ database: any SQLDatabase) async throws {
        let hash = try await PasswordHasher(cost: 10).hash(client.secret)
        let created = Date(timeIntervalSince1970: 1_800_000_000).millisecondsSince1970
        _ = try await database.execute(
            "INSERT INTO clients (id, secret_hash, scopes, created_at, updated_at) VALUES (?, ?, ?, ?, ?)",
            [client.clientId, hash, Scope.pushSend, created, created])
    }

    /// The migrated client gets a token with its scopes and no `apps` claim.
    static func expectTokenWithoutApps(_ auth: AuthHarness) async throws {
        let token = try await auth.rpc.call(
            Auth.ClientToken.self, .init(clientId: client.clientId, clientSecret: client.secret))
        #expect(token.scopes == [Scope.pushSend])
        #expect(try ClientAppsTests.payload(of: token.accessToken)["apps"] == nil)
        let principal = try await auth.verifier().verify(token.accessToken)
        #expect(principal.subject == client.clientId)
        #expect(principal.apps == [])
    }

    static var beforeV5: [SQLMigration] { Array(AuthMigrations.all.prefix { $0.version != "v5 client apps" }) }

    @Test("on SQLite, a client stored at v4 still gets tokens after v5, with no apps")
    func sqlite() async throws {
        #expect(Self.beforeV5.count == 4)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("auth.sqlite")
        do {
            let old = try ServiceDatabase.sqlite(path: path, migrations: Self.beforeV5)
            try await Self.insertV4Client(old.sql)
        }
        let auth = try await AuthHarness.make(AuthHarness.configuration(databasePath: path))
        try await Self.expectTokenWithoutApps(auth)
    }

    @Test(
        "on PostgreSQL, a client stored at v4 still gets tokens after v5, with no apps",
        .enabled(if: TestPostgres.isConfigured, Comment(rawValue: TestPostgres.skipNotice)))
    func postgres() async throws {
        let url = try TestPostgres.isolatedURL()
        try await TestPostgres.withDatabase(
            serviceName: "auth", migrations: Self.beforeV5.postgres, url: url, dropSchema: false
        ) { old in
            try await Self.insertV4Client(PostgresSQLDatabase(old))
        }
        try await TestPostgres.withDatabase(serviceName: "auth", migrations: AuthMigrations.all.postgres, url: url) {
            let auth = try await AuthHarness.make(AuthHarness.configuration(), postgres: $0)
            try await Self.expectTokenWithoutApps(auth)
        }
    }
}
