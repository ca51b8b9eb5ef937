import AuthService
import Crypto
import Foundation
import ServiceCore
import SharedModels
import Testing

@Suite("Registering and signing in")
struct RegisterAndLoginTests {
    @Test("a registered user signs in and gets an access token that verifies with the published keys")
    func registerAndLogin() async throws {
        let auth = try await AuthHarness.make()
        let userId = try await auth.register("alice")
        #expect(UUID(uuidString: userId) != nil)
        #expect(userId == userId.lowercased())

        let grant = try await auth.login("alice")
        #expect(grant.userId == userId)
        #expect(grant.tokenType == "Bearer")
        #expect(grant.expiresIn == 900)
        #expect(!grant.refreshToken.isEmpty)
        #expect(Data(base64URLEncoded: grant.refreshToken)?.count == 32)

        let principal = try await auth.verifier().verify(grant.accessToken)
        #expect(principal.subject == userId)
        #expect(principal.scopes == [Scope.user])

        let keys = try await auth.rpc.call(Auth.Keys.self, Empty()).keys
        let header = try TokenHeader(of: grant.accessToken)
        #expect(header.alg == "ES256")
        #expect(header.kid == keys.first?.kid)
    }

    @Test("the key id is the RFC 7638 thumbprint of the published public key")
    func keyIDIsThumbprint() async throws {
        let auth = try await AuthHarness.make()
        let key = try #require(try await auth.rpc.call(Auth.Keys.self, Empty()).keys.first)
        #expect(key.kty == "EC" && key.crv == "P-256" && key.alg == "ES256" && key.use == "sig")
        let canonical = "{\"crv\":\"P-256\",\"kty\":\"EC\",\"x\":\"\(key.x)\",\"y\":\"\(key.y)\"}"
        let expected = Data(SHA256.hash(data: Data(canonical.utf8))).base64URLEncodedString()
        #expect(key.kid == expected)
    }

    @Test("two registrations get different random user ids")
    func randomUserIDs() async throws {
        let auth = try await AuthHarness.make()
        let first = try await auth.register("first")
        let second = try await auth.register("second")
        #expect(first != second)
    }

    @Test("a taken username is refused with -32009")
    func takenUsername() async throws {
        let auth = try await AuthHarness.make()
        try await auth.register("bob")
        let error = try #require(
            await #expect(throws: RPCError.self) { try await auth.register("bob", "another password") })
        #expect(error.code == RPCErrorCode.conflict)
        // The first account is untouched.
        _ = try await auth.login("bob")
    }

    @Test("a wrong password and an unknown user give exactly the same error")
    func wrongPasswordAndUnknownUserLookAlike() async throws {
        let auth = try await AuthHarness.make()
        try await auth.register("carol")
        let wrongPassword = try #require(
            await #expect(throws: RPCError.self) { try await auth.login("carol", "not the password") })
        let unknownUser = try #require(
            await #expect(throws: RPCError.self) { try await auth.login("nobody", "correct horse") })
        #expect(wrongPassword.code == RPCErrorCode.unauthenticated)
        #expect(wrongPassword == unknownUser)
    }

    @Test("a password longer than 72 bytes never signs in, even when its first 72 bytes match")
    func overlongPasswordAtLogin() async throws {
        let auth = try await AuthHarness.make()
        let password = String(repeating: "p", count: 72)
        try await auth.register("dave", password)
        let error = try #require(
            await #expect(throws: RPCError.self) { try await auth.login("dave", password + "extra") })
        #expect(error.code == RPCErrorCode.unauthenticated)
        _ = try await auth.login("dave", password)
    }

    @Test("missing params are named in -32602")
    func missingParams() async throws {
        let auth = try await AuthHarness.make()
        let body = Data(#"{"jsonrpc":"2.0","id":1,"method":"auth.register","params":{"username":"erin"}}"#.utf8)
        let response = try #require(
            await auth.components.dispatcher.handle(
                body: body, context: .init(bearerToken: nil, logger: AuthHarness.logger)))
        let text = String(decoding: response, as: UTF8.self)
        #expect(text.contains("-32602"))
        #expect(text.contains("'password'"))
    }

    @Test("the dispatcher serves exactly the methods of MethodCatalog.auth")
    func methodNames() async throws {
        let auth = try await AuthHarness.make()
        #expect(auth.components.dispatcher.methodNames == MethodCatalog.auth)
    }

    @Test("health reports the database as ok")
    func health() async throws {
        let auth = try await AuthHarness.make()
        #expect(await auth.components.health() == ["database": "ok"])
    }
}
