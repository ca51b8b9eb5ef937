import AuthService
import Foundation
import SharedModels
import Testing

@Suite("Username and password rules")
struct CredentialValidationTests {
    /// Registers and returns the `-32602` error's field.
    private func refusedField(_ auth: AuthHarness, _ username: String, _ password: String) async throws -> String? {
        let error = try #require(await #expect(throws: RPCError.self) { try await auth.register(username, password) })
        #expect(error.code == RPCErrorCode.invalidParams)
        guard case .object(let data) = error.data, case .string(let field) = data["field"] else { return nil }
        #expect(error.message.contains("'\(field)'"))
        return field
    }

    @Test("usernames must be 3–64 characters", arguments: ["ab", "", String(repeating: "a", count: 65)])
    func usernameLength(username: String) async throws {
        let auth = try await AuthHarness.make()
        #expect(try await refusedField(auth, username, "long enough password") == "username")
    }

    @Test("usernames may only use [a-z0-9._-]", arguments: ["Alice", "al ice", "al!ce", "ålice", "al/ice"])
    func usernameCharacters(username: String) async throws {
        let auth = try await AuthHarness.make()
        #expect(try await refusedField(auth, username, "long enough password") == "username")
    }

    @Test(
        "usernames with bidi overrides, isolates or control characters are refused",
        arguments: ["ali\u{202E}ce", "al\u{2066}ice\u{2069}", "alice\n", "ali\u{0}ce", "al\u{85}ice"])
    func usernameInvisibleControls(username: String) async throws {
        let auth = try await AuthHarness.make()
        #expect(try await refusedField(auth, username, "long enough password") == "username")
    }

    @Test(
        "usernames at the edges of the rules are accepted",
        arguments: ["abc", "a.b_c-9", String(repeating: "z", count: 64)])
    func usernameEdges(username: String) async throws {
        let auth = try await AuthHarness.make()
        try await auth.register(username, "long enough password")
        _ = try await auth.login(username, "long enough password")
    }

    @Test("passwords must be 8–72 bytes", arguments: ["short", "1234567", String(repeating: "x", count: 73)])
    func passwordLength(password: String) async throws {
        let auth = try await AuthHarness.make()
        #expect(try await refusedField(auth, "frank", password) == "password")
    }

    @Test("password length is counted in UTF-8 bytes, not characters")
    func passwordBytes() async throws {
        let auth = try await AuthHarness.make()
        // "é" is 2 bytes: 37 of them are 74 bytes although only 37 characters.
        #expect(try await refusedField(auth, "grace", String(repeating: "é", count: 37)) == "password")
        // 3 characters but only 6 bytes: too short.
        #expect(try await refusedField(auth, "grace", "ééé") == "password")
        // Exactly 72 bytes and exactly 8 bytes are fine.
        try await auth.register("grace", String(repeating: "é", count: 36))
        _ = try await auth.login("grace", String(repeating: "é", count: 36))
        try await auth.register("heidi", "éééé")
        _ = try await auth.login("heidi", "éééé")
    }

    @Test("passwords with a NUL character are refused (bcrypt would ignore the rest)")
    func passwordNUL() async throws {
        let auth = try await AuthHarness.make()
        #expect(try await refusedField(auth, "ivan", "password\u{0}suffix") == "password")
    }
}
