import AuthService
import Foundation
import GRDB
import Logging
import ServiceCore
import SharedModels
import TestSupport
import Testing

@Suite("Service clients")
struct ClientTests {
    private let backend = ClientRegistry.Credentials(clientId: "app-backend", secret: "backend-secret-1")
    private let dispatch = ClientRegistry.Credentials(clientId: "push-dispatch", secret: "dispatch-secret-1")

    private func clientToken(_ auth: AuthHarness, _ id: String, _ secret: String) async throws
        -> Auth.ClientToken.Result
    {
        try await auth.rpc.call(Auth.ClientToken.self, .init(clientId: id, clientSecret: secret))
    }

    @Test("provisioned clients get tokens with their scope, for their client id")
    func provisionedClients() async throws {
        let auth = try await AuthHarness.make(
            AuthHarness.configuration(bootstrapClient: backend, dispatchClient: dispatch))
        let backendToken = try await clientToken(auth, backend.clientId, backend.secret)
        // The bootstrap client is an app backend: it sends, and manages its own webhooks.
        #expect(backendToken.scopes == [Scope.pushSend, Scope.webhooksManage])
        #expect(backendToken.tokenType == "Bearer")
        #expect(backendToken.expiresIn == 900)
        let principal = try await auth.verifier().verify(backendToken.accessToken)
        #expect(principal.subject == backend.clientId)
        #expect(principal.scopes == [Scope.pushSend, Scope.webhooksManage])
        #expect(!principal.isUser)

        let dispatchToken = try await clientToken(auth, dispatch.clientId, dispatch.secret)
        // push-dispatch writes to the store, checks recipients exist, reads which sessions were signed out, and
        // pseudonymises its audit trail with auth's keys.
        #expect(dispatchToken.scopes == [Scope.auditKeys, Scope.sessionsRead, Scope.storeWrite, Scope.usersRead])
        #expect(
            try await auth.verifier().verify(dispatchToken.accessToken).scopes == [
                Scope.storeWrite, Scope.sessionsRead, Scope.usersRead, Scope.auditKeys,
            ])
    }

    @Test("a wrong secret and an unknown client give exactly the same -32001")
    func wrongCredentials() async throws {
        let auth = try await AuthHarness.make(AuthHarness.configuration(bootstrapClient: backend))
        let wrongSecret = try #require(
            await #expect(throws: RPCError.self) {
                try await clientToken(auth, backend.clientId, "not-the-secret")
            })
        let unknownClient = try #require(
            await #expect(throws: RPCError.self) {
                try await clientToken(auth, "nobody", backend.secret)
            })
        #expect(wrongSecret.code == RPCErrorCode.unauthenticated)
        #expect(wrongSecret == unknownClient)
    }

    @Test("provisioning at start creates the client, and a later start with a new secret updates it")
    func provisioningUpdatesSecret() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("auth.sqlite")

        let first = try await AuthHarness.make(AuthHarness.configuration(databasePath: path, bootstrapClient: backend))
        _ = try await clientToken(first, backend.clientId, backend.secret)

        let rotated = ClientRegistry.Credentials(clientId: backend.clientId, secret: "backend-secret-2")
        let second = try await AuthHarness.make(AuthHarness.configuration(databasePath: path, bootstrapClient: rotated))
        let old = try #require(
            await #expect(throws: RPCError.self) { try await clientToken(second, backend.clientId, backend.secret) })
        #expect(old.code == RPCErrorCode.unauthenticated)
        #expect(
            try await clientToken(second, rotated.clientId, rotated.secret).scopes
                == [Scope.pushSend, Scope.webhooksManage])
    }

    @Test("createClient generates a strong secret when none is given, and the client can get tokens")
    func createClientGeneratesSecret() async throws {
        let auth = try await AuthHarness.make()
        let created = try await auth.components.service.createClient(
            id: "reporting", scopes: ["push:send", "store:write"], secret: nil)
        #expect(created.clientId == "reporting")
        #expect(created.secret.utf8.count >= 32)
        let token = try await clientToken(auth, created.clientId, created.secret)
        #expect(token.scopes == [Scope.pushSend, Scope.storeWrite])

        let another = try await auth.components.service.createClient(
            id: "reporting-2", scopes: ["push:send"], secret: nil)
        #expect(another.secret != created.secret)
    }

    @Test("createClient keeps a chosen secret and refuses an id that exists")
    func createClientChosenSecret() async throws {
        let auth = try await AuthHarness.make()
        let created = try await auth.components.service.createClient(
            id: "crm", scopes: ["push:send"], secret: "chosen-secret-value")
        #expect(created.secret == "chosen-secret-value")
        _ = try await clientToken(auth, "crm", "chosen-secret-value")

        let error = try #require(
            await #expect(throws: AuthError.self) {
                try await auth.components.service.createClient(id: "crm", scopes: ["push:send"], secret: nil)
            })
        #expect(error.rpcError.code == RPCErrorCode.conflict)
    }

    @Test(
        "createClient refuses scope 'user' and malformed scopes",
        arguments: [["user"], ["push:send", "user"], [""], ["Push:Send"], ["a b"], []])
    func createClientRefusesScopes(scopes: [String]) async throws {
        let auth = try await AuthHarness.make()
        let error = try #require(
            await #expect(throws: AuthError.self) {
                try await auth.components.service.createClient(id: "sneaky", scopes: scopes, secret: nil)
            })
        #expect(error.rpcError.code == RPCErrorCode.invalidParams)
        #expect(error.rpcError.message.contains("'scopes'"))
        // Nothing was stored.
        await #expect(throws: RPCError.self) { try await clientToken(auth, "sneaky", "anything") }
    }

    @Test("createClient refuses malformed client ids")
    func createClientRefusesIDs() async throws {
        let auth = try await AuthHarness.make()
        for id in ["ab", "has space", "slash/id", String(repeating: "c", count: 65)] {
            let error = try #require(
                await #expect(throws: AuthError.self) {
                    try await auth.components.service.createClient(id: id, scopes: ["push:send"], secret: nil)
                })
            #expect(error.rpcError.message.contains("'clientId'"))
        }
    }

    @Test("client secrets are stored only as bcrypt hashes")
    func secretsHashed() async throws {
        let auth = try await AuthHarness.make(AuthHarness.configuration(bootstrapClient: backend))
        let stored = try await auth.components.sqlite!.read { db in
            try String.fetchOne(db, sql: "SELECT secret_hash FROM clients WHERE id = ?", arguments: [backend.clientId])
        }
        let hash = try #require(stored)
        #expect(hash.hasPrefix("$2"))
        #expect(!hash.contains(backend.secret))
    }

    @Test("the CLI's registry opens an on-disk database and its clients work in the running service")
    func registryForCLI() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let configuration = AuthHarness.configuration(databasePath: directory.file("auth.sqlite"))
        let created = try await ClientRegistry.with(configuration: configuration, logger: Logger(label: "cli")) {
            try await $0.createClient(id: "cli-made", scopes: ["push:send"], secret: nil)
        }

        let auth = try await AuthHarness.make(configuration)
        #expect(try await clientToken(auth, created.clientId, created.secret).scopes == [Scope.pushSend])
    }
}
