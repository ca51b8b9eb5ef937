import AuthService
import Foundation
import TestSupport
import Testing

extension AuthRepositoryTests {
    @Test("revoked families are listed from a time on, each revocation once", arguments: TestPostgres.backends)
    func revokedFamilies(backend: TestDatabaseBackend) async throws {
        try await withRepository(backend) { repository in
            try await repository.insertUser(.init(id: "u1", username: "ada", passwordHash: "h", createdAt: Self.start))
            let expires = Self.start.addingTimeInterval(600)
            for family in ["f1", "f2", "f3"] {
                try await repository.startFamily(
                    id: family, userID: "u1", firstTokenHash: "t-\(family)", expiresAt: expires, at: Self.start)
            }
            #expect(try await repository.revokedFamilies(since: Self.start).isEmpty)
            #expect(try await repository.revokeFamily(ofTokenHash: "t-f1", at: Self.start.addingTimeInterval(10)))
            #expect(try await repository.revokeFamily(ofTokenHash: "t-f3", at: Self.start.addingTimeInterval(20)))
            // Revoking again keeps the first revocation time.
            #expect(try await repository.revokeFamily(ofTokenHash: "t-f1", at: Self.start.addingTimeInterval(30)))

            #expect(try await repository.revokedFamilies(since: Self.start) == ["f1", "f3"])
            #expect(try await repository.revokedFamilies(since: Self.start.addingTimeInterval(10)) == ["f1", "f3"])
            #expect(try await repository.revokedFamilies(since: Self.start.addingTimeInterval(11)) == ["f3"])
            #expect(try await repository.revokedFamilies(since: Self.start.addingTimeInterval(21)).isEmpty)
        }
    }
}
