import AuthService
import Foundation
import GRDB
import JWTKit
import ServiceCore
import SharedModels
import TestSupport
import Testing

@Suite("Signing keys")
struct SigningKeyTests {
    /// A SEC1 (`EC PRIVATE KEY`) PEM as `openssl ecparam -name prime256v1 -genkey -noout` writes it. Test-only key.
    static let sec1PEM = """
        -----BEGIN EC PRIVATE KEY-----
        MHcCAQEEIKxmWiBn72I+Pgzeg/M5hB5MNNAsP6UnKZVfV8qEM1fBoAoGCCqGSM49
        AwEHoUQDQgAEqKeQhcCh9KpQoiQpLVxCVRoEuGJURJKxZGNyddd2gcmxxCkJae9o
        vPYGPEfXeZQJHJujnQVaElcopTC0gAvoVw==
        -----END EC PRIVATE KEY-----
        """

    @Test("a generated key persists: after a restart the kid is the same and old tokens still verify")
    func generatedKeyPersists() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let configuration = AuthHarness.configuration(databasePath: directory.file("auth.sqlite"))

        let before = try await AuthHarness.make(configuration)
        try await before.register("alice")
        let grant = try await before.login("alice")
        let kidBefore = try #require(try await before.rpc.call(Auth.Keys.self, Empty()).keys.first?.kid)

        let after = try await AuthHarness.make(configuration)
        let keysAfter = try await after.rpc.call(Auth.Keys.self, Empty()).keys
        #expect(keysAfter.map(\.kid) == [kidBefore])
        #expect(try await after.verifier().verify(grant.accessToken).subject == grant.userId)
        // The account and the session survived too.
        _ = try await after.refresh(grant.refreshToken)
    }

    @Test("a configured PEM key file signs the tokens and its private key is not copied into the database")
    func keyFileIsLoaded() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let key = ES256PrivateKey()
        let keyFile = directory.file("signing.pem")
        try key.pemRepresentation.write(toFile: keyFile, atomically: true, encoding: .utf8)
        let expectedKid = SigningKey(privateKey: key).kid

        let auth = try await AuthHarness.make(AuthHarness.configuration(signingKeyFile: keyFile))
        let keys = try await auth.rpc.call(Auth.Keys.self, Empty()).keys
        #expect(keys.first?.kid == expectedKid)
        #expect(keys.first?.x == key.parameters?.x)
        try await auth.register("bob")
        let grant = try await auth.login("bob")
        #expect(try TokenHeader(of: grant.accessToken).kid == expectedKid)
        #expect(try await auth.verifier().verify(grant.accessToken).subject == grant.userId)

        let storedPEMs = try await auth.components.sqlite!.read { db in
            try String?.fetchAll(db, sql: "SELECT private_key_pem FROM signing_keys")
        }
        #expect(storedPEMs == [nil])
    }

    @Test("a SEC1 'EC PRIVATE KEY' PEM is accepted as well")
    func sec1KeyFile() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let keyFile = directory.file("sec1.pem")
        try Self.sec1PEM.write(toFile: keyFile, atomically: true, encoding: .utf8)
        let auth = try await AuthHarness.make(AuthHarness.configuration(signingKeyFile: keyFile))
        #expect(try await auth.rpc.call(Auth.Keys.self, Empty()).keys.first?.kid == SigningKey(pem: Self.sec1PEM).kid)
    }

    @Test("an unreadable or non-key file refuses to start, naming the variable")
    func badKeyFile() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let garbage = directory.file("garbage.pem")
        try "not a key".write(toFile: garbage, atomically: true, encoding: .utf8)
        for path in [garbage, directory.file("missing.pem")] {
            let error = try #require(
                await #expect(throws: ConfigurationError.self) {
                    try await AuthHarness.make(AuthHarness.configuration(signingKeyFile: path))
                })
            #expect(error.description.contains("SECUREPUSH_AUTH_SIGNING_KEY_FILE"))
        }
    }

    @Test("switching from the generated key to a key file keeps the old key published while its tokens live")
    func retiredKeyStaysPublished() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let clock = TestClock()
        let path = directory.file("auth.sqlite")
        let generated = try await AuthHarness.make(AuthHarness.configuration(databasePath: path), clock: clock)
        try await generated.register("carol")
        let oldGrant = try await generated.login("carol")
        let oldKid = try TokenHeader(of: oldGrant.accessToken).kid

        let keyFile = directory.file("signing.pem")
        try ES256PrivateKey().pemRepresentation.write(toFile: keyFile, atomically: true, encoding: .utf8)
        let configured = try await AuthHarness.make(
            AuthHarness.configuration(databasePath: path, signingKeyFile: keyFile), clock: clock)
        let keys = try await configured.rpc.call(Auth.Keys.self, Empty()).keys
        #expect(keys.count == 2)
        #expect(keys.last?.kid == oldKid)
        #expect(keys.first?.kid != oldKid)

        clock.advance(by: TimeInterval(configured.components.configuration.accessTokenTTL) + 1)
        #expect(try await configured.rpc.call(Auth.Keys.self, Empty()).keys.map(\.kid) == [keys[0].kid])
    }

    @Test("production without a signing key file refuses to start, saying what to set")
    func productionNeedsKeyFile() async throws {
        let fromEnvironment = try #require(
            #expect(throws: ConfigurationError.self) {
                try AuthConfiguration(environment: ServiceEnvironment(["SECUREPUSH_ENV": "production"]))
            })
        #expect(fromEnvironment.description.contains("SECUREPUSH_AUTH_SIGNING_KEY_FILE"))

        var configuration = AuthHarness.configuration()
        configuration.isProduction = true
        let fromMemberwise = try #require(
            await #expect(throws: ConfigurationError.self) {
                try await AuthHarness.make(configuration)
            })
        #expect(fromMemberwise.description.contains("SECUREPUSH_AUTH_SIGNING_KEY_FILE"))
    }

    @Test("production with a key file starts")
    func productionWithKeyFile() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let keyFile = directory.file("signing.pem")
        try ES256PrivateKey().pemRepresentation.write(toFile: keyFile, atomically: true, encoding: .utf8)
        var configuration = AuthHarness.configuration(signingKeyFile: keyFile)
        configuration.isProduction = true
        let auth = try await AuthHarness.make(configuration)
        #expect(try await auth.rpc.call(Auth.Keys.self, Empty()).keys.count == 1)
    }
}

@Suite(
    "Signing keys shared by auth replicas on PostgreSQL",
    .enabled(if: TestPostgres.isConfigured, Comment(rawValue: TestPostgres.skipNotice)))
struct ReplicaSigningKeyTests {
    @Test("replicas started together sign with one key; after a rotation every replica publishes old and new keys")
    func rotationAcrossReplicas() async throws {
        try await TestPostgres.withTwoReplicas(serviceName: "auth", migrations: AuthMigrations.all.postgres) {
            first, second in
            // Development mode: two replicas starting at once agree on one generated key.
            async let startA = AuthHarness.make(AuthHarness.configuration(), postgres: first)
            async let startB = AuthHarness.make(AuthHarness.configuration(), postgres: second)
            let (a, b) = try await (startA, startB)
            let kidA = try #require(try await a.rpc.call(Auth.Keys.self, Empty()).keys.first?.kid)
            #expect(try await b.rpc.call(Auth.Keys.self, Empty()).keys.first?.kid == kidA)
            try await a.register("carol")
            let oldGrant = try await a.login("carol")

            // A third replica rolls out with a new key file: it activates it and retires the shared one.
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let newKey = ES256PrivateKey()
            let keyFile = directory.file("rotated.pem")
            try newKey.pemRepresentation.write(toFile: keyFile, atomically: true, encoding: .utf8)
            let c = try await AuthHarness.make(AuthHarness.configuration(signingKeyFile: keyFile), postgres: first)
            let newKid = SigningKey(privateKey: newKey).kid
            let newGrant = try await c.login("carol")
            #expect(try TokenHeader(of: newGrant.accessToken).kid == newKid)

            // Every replica, old or new, publishes both keys: tokens from either verify against any replica's JWKS.
            for replica in [a, b, c] {
                let kids = Set(try await replica.rpc.call(Auth.Keys.self, Empty()).keys.map(\.kid))
                #expect(kids == [kidA, newKid])
                #expect(try await replica.verifier().verify(oldGrant.accessToken).subject == oldGrant.userId)
                #expect(try await replica.verifier().verify(newGrant.accessToken).subject == newGrant.userId)
            }
        }
    }
}
