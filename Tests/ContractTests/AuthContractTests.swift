import Foundation
import SharedModels
import Testing

@Suite("auth.* wire contract")
struct AuthContractTests {
    static let userId = "4f3c2a1e-8b7d-4c6a-9e5f-0a1b2c3d4e5f"

    @Test("auth.register {username, password} → {userId}")
    func register() throws {
        let params = try Fixture.params(Auth.Register.self, "auth.register")
        #expect(params == Auth.Register.Params(username: "ada.lovelace", password: "correct horse battery staple"))
        let result = try Fixture.result(Auth.Register.self, "auth.register")
        #expect(result.userId == Self.userId)
    }

    @Test("auth.login {username, password} → token grant")
    func login() throws {
        let params = try Fixture.params(Auth.Login.self, "auth.login")
        #expect(params.username == "ada.lovelace")
        #expect(params.password == "correct horse battery staple")
        let grant = try Fixture.result(Auth.Login.self, "auth.login")
        #expect(grant.userId == Self.userId)
        #expect(grant.accessToken.split(separator: ".").count == 3)
        #expect(grant.accessToken.hasPrefix("eyJhbGciOiJFUzI1NiIs"))
        #expect(grant.refreshToken == "rt_Jx8mQ2vN5pL7kR3tW9yB4cF6hD1gS0aZ")
        #expect(grant.tokenType == "Bearer")
        #expect(grant.expiresIn == 900)
    }

    @Test("auth.refresh {refreshToken} → a rotated token grant")
    func refresh() throws {
        let params = try Fixture.params(Auth.Refresh.self, "auth.refresh")
        #expect(params == Auth.Refresh.Params(refreshToken: "rt_Jx8mQ2vN5pL7kR3tW9yB4cF6hD1gS0aZ"))
        let grant = try Fixture.result(Auth.Refresh.self, "auth.refresh")
        #expect(grant.refreshToken == "rt_Vb3nM6qP9sT2wY5zC8eG1jK4lO7rU0xA")
        #expect(grant.refreshToken != params.refreshToken)
        #expect(grant.userId == Self.userId)
        #expect(grant.tokenType == "Bearer")
        #expect(grant.expiresIn == 900)
    }

    @Test("auth.logout {refreshToken} → {}")
    func logout() throws {
        let params = try Fixture.params(Auth.Logout.self, "auth.logout")
        #expect(params.refreshToken == "rt_Vb3nM6qP9sT2wY5zC8eG1jK4lO7rU0xA")
        #expect(try Fixture.result(Auth.Logout.self, "auth.logout") == Empty())
    }

    @Test("auth.clientToken {clientId, clientSecret} → scoped access token")
    func clientToken() throws {
        let params = try Fixture.params(Auth.ClientToken.self, "auth.clientToken")
        #expect(
            params
                == Auth.ClientToken.Params(
                    clientId: "billing-backend", clientSecret: "cs_live_5kQ9wE2rT7yU1iO4pA8sD3fG6hJ0lZ"))
        let result = try Fixture.result(Auth.ClientToken.self, "auth.clientToken")
        #expect(result.scopes == [Scope.pushSend])
        #expect(result.tokenType == "Bearer")
        #expect(result.expiresIn == 3600)
        #expect(result.accessToken.split(separator: ".").count == 3)
    }

    @Test("auth.keys {} → JWKS of EC P-256 keys")
    func keys() throws {
        #expect(try Fixture.params(Auth.Keys.self, "auth.keys") == Empty())
        let result = try Fixture.result(Auth.Keys.self, "auth.keys")
        #expect(
            result.keys == [
                Auth.PublicJWK(
                    x: "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
                    y: "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0",
                    kid: "key-2026-11")
            ])
        let key = try #require(result.keys.first)
        #expect([key.kty, key.crv, key.alg, key.use] == ["EC", "P-256", "ES256", "sig"])
    }

    @Test("auth.lookupUser {username} or {userId} → {userId, username}")
    func lookupUser() throws {
        #expect(
            try Fixture.params(Auth.LookupUser.self, "auth.lookupUser")
                == Auth.LookupUser.Params(username: "ada.lovelace"))
        #expect(
            try Fixture.params(Auth.LookupUser.self, "auth.lookupUser", minimal: true)
                == Auth.LookupUser.Params(userId: Self.userId))
        #expect(
            try Fixture.result(Auth.LookupUser.self, "auth.lookupUser")
                == Auth.LookupUser.Result(userId: Self.userId, username: "ada.lovelace"))
    }

    @Test("auth.lookupUsers {userIds} → {users: [{userId, username}], unknownUserIds}")
    func lookupUsers() throws {
        let unknown = "00000000-0000-4000-8000-000000000000"
        #expect(
            try Fixture.params(Auth.LookupUsers.self, "auth.lookupUsers")
                == Auth.LookupUsers.Params(userIds: [Self.userId, unknown]))
        #expect(
            try Fixture.result(Auth.LookupUsers.self, "auth.lookupUsers")
                == Auth.LookupUsers.Result(
                    users: [Auth.LookupUser.Result(userId: Self.userId, username: "ada.lovelace")],
                    unknownUserIds: [unknown]))
    }

    @Test("auth.auditKeys {userIds} → {keys: [{userId, key}], addressKey: {day, key}}")
    func auditKeys() throws {
        let unknown = "00000000-0000-4000-8000-000000000000"
        #expect(
            try Fixture.params(Auth.AuditKeys.self, "auth.auditKeys")
                == Auth.AuditKeys.Params(userIds: [Self.userId, unknown]))
        #expect(
            try Fixture.result(Auth.AuditKeys.self, "auth.auditKeys")
                == Auth.AuditKeys.Result(
                    keys: [.init(userId: Self.userId, key: "Zx8Pq7Rw6Ev5Tb4Ny3Mu2Li1Ko0Jp9Hq8Gr7Fs6Ed5c")],
                    addressKey: .init(day: "2026-11-27", key: "q0w9Jx2k3Z7b8mNcV4p1sT6yR5uE0aLdF2gH9iJkL3o")))
    }

    @Test("users.delete {userId?, username?} → {erasureId, services: {auth, notification-store, push-dispatch}}")
    func usersDelete() throws {
        #expect(try Fixture.params(Users.Delete.self, "users.delete") == Users.Delete.Params(userId: Self.userId))
        #expect(try Fixture.params(Users.Delete.self, "users.delete", minimal: true) == Users.Delete.Params())
        let result = try Fixture.result(Users.Delete.self, "users.delete")
        #expect(result.erasureId == "e7a1c3f5-2b4d-4e6f-8a9b-0c1d2e3f4a5b")
        #expect(Set(result.services.keys) == ["auth", "notification-store", "push-dispatch"])
        #expect(result.services["push-dispatch"]?["devices"] == 2)
        #expect(result.services["notification-store"]?["notifications"] == 3)
        #expect(result.services["auth"]?["sessions"] == 2)
    }
}
