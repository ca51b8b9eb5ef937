import AuthService
import Foundation
import ServiceCore
import SharedModels
import TestSupport
import Testing

/// Backend clients belong to apps (issue 27): the client record's apps become the `apps` claim of its tokens.
@Suite("Service clients bound to apps")
struct ClientAppsTests {
    private func clientToken(_ auth: AuthHarness, _ credentials: ClientRegistry.Credentials) async throws
        -> Auth.ClientToken.Result
    {
        try await auth.rpc.call(
            Auth.ClientToken.self, .init(clientId: credentials.clientId, clientSecret: credentials.secret))
    }

    /// The JWT's payload as a JSON object, read without verifying anything.
    static func payload(of token: String) throws -> [String: Any] {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        try #require(parts.count == 3)
        let data = try #require(Data(base64URLEncoded: String(parts[1])))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test("a client created with two apps gets tokens whose verified principal has exactly those apps")
    func twoApps() async throws {
        let auth = try await AuthHarness.make()
        let created = try await auth.components.service.createClient(
            id: "retail-backend", scopes: ["push:send"], apps: ["retail-ios", "business-web", "retail-ios"],
            secret: nil)
        let token = try await clientToken(auth, created)
        #expect(token.scopes == [Scope.pushSend])
        #expect(try Self.payload(of: token.accessToken)["apps"] as? [String] == ["business-web", "retail-ios"])
        let principal = try await auth.verifier().verify(token.accessToken)
        #expect(principal.subject == "retail-backend")
        #expect(principal.apps == ["business-web", "retail-ios"])
        #expect(principal.scopes == [Scope.pushSend])
    }

    @Test("a client without apps gets tokens with no `apps` claim, and a principal with no apps (the default app)")
    func noApps() async throws {
        let auth = try await AuthHarness.make()
        let created = try await auth.components.service.createClient(id: "crm", scopes: ["push:send"], secret: nil)
        let token = try await clientToken(auth, created)
        let payload = try Self.payload(of: token.accessToken)
        #expect(payload["scope"] as? String == Scope.pushSend)
        #expect(payload["apps"] == nil)
        #expect(try await auth.verifier().verify(token.accessToken).apps == [])

        // People's tokens never carry apps either.
        try await auth.register("alice")
        #expect(try Self.payload(of: try await auth.login("alice").accessToken)["apps"] == nil)
    }

    @Test(
        "createClient refuses a malformed app id with a -32602 naming 'apps', and stores nothing",
        arguments: ["Retail", "a", String(repeating: "a", count: 65), "retail ios", "retail_ios", ""])
    func refusesMalformedApp(app: String) async throws {
        let auth = try await AuthHarness.make()
        let error = try #require(
            await #expect(throws: AuthError.self) {
                try await auth.components.service.createClient(
                    id: "sneaky", scopes: ["push:send"], apps: ["retail-ios", app], secret: "sneaky-secret-value")
            })
        #expect(error.rpcError.code == RPCErrorCode.invalidParams)
        #expect(error.rpcError.message.contains("'apps'"))
        #expect(error.rpcError.data?["field"] == .string("apps"))
        await #expect(throws: RPCError.self) {
            try await clientToken(auth, .init(clientId: "sneaky", secret: "sneaky-secret-value"))
        }
    }

    @Test("a client may be bound to at most 64 distinct apps")
    func atMost64Apps() async throws {
        let auth = try await AuthHarness.make()
        let apps = (0..<64).map { "app-\($0)" }
        // Duplicates do not count.
        _ = try await auth.components.service.createClient(
            id: "many", scopes: ["push:send"], apps: apps + apps, secret: nil)
        let error = try #require(
            await #expect(throws: AuthError.self) {
                try await auth.components.service.createClient(
                    id: "too-many", scopes: ["push:send"], apps: apps + ["app-64"], secret: nil)
            })
        #expect(error.rpcError.message.contains("'apps'"))
    }

    @Test(
        "the repository keeps a client's apps, stores none as NULL, and upsert replaces them",
        arguments: TestPostgres.backends)
    func repository(backend: TestDatabaseBackend) async throws {
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        try await withDatabase(backend) { database in
            let repository = SQLAuthRepository(database: database)
            try await repository.insertClient(
                .init(id: "retail", secretHash: "s1", scopes: ["push:send"], apps: ["a1", "b2"], createdAt: start))
            try await repository.insertClient(
                .init(id: "plain", secretHash: "s2", scopes: ["push:send"], createdAt: start))
            #expect(try await repository.client(id: "retail")?.apps == ["a1", "b2"])
            #expect(try await repository.client(id: "plain")?.apps == [])
            let stored = try await database.readOne("SELECT apps FROM clients WHERE id = ?", ["plain"])
            #expect(try stored?.decode(0, as: String?.self) == nil)

            try await repository.upsertClient(
                .init(id: "plain", secretHash: "s3", scopes: ["push:send"], apps: ["c3"], createdAt: start))
            #expect(try await repository.client(id: "plain")?.apps == ["c3"])
            try await repository.upsertClient(
                .init(id: "retail", secretHash: "s4", scopes: ["push:send"], createdAt: start))
            #expect(try await repository.client(id: "retail")?.apps == [])
        }
    }

    private func withDatabase(_ backend: TestDatabaseBackend, _ body: (any SQLDatabase) async throws -> Void)
        async throws
    {
        switch backend {
        case .sqlite:
            try await body(try ServiceDatabase.sqlite(path: nil, migrations: AuthMigrations.all).sql)
        case .postgres:
            try await TestPostgres.withDatabase(serviceName: "auth", migrations: AuthMigrations.all.postgres) {
                try await body(PostgresSQLDatabase($0))
            }
        }
    }
}
