import Foundation
import ServiceCore
import StoreService
import TestSupport
import Testing

@Suite("The repository's fetch without suspending")
struct ImmediateFetchRepositoryTests {
    let contract = NotificationRepositoryTests()

    @Test(
        "on SQLite it answers exactly what the async fetch answers; on PostgreSQL it leaves every fetch async",
        arguments: TestPostgres.backends)
    func sameAsAsync(backend: TestDatabaseBackend) async throws {
        try await contract.withRepository(backend) { repository in
            let immediate = try #require(repository as? any ImmediateNotificationFetching)
            let now = NotificationRepositoryTests.start.addingTimeInterval(60)
            try await repository.insert(contract.record("n1", to: "ada"))
            try await repository.insert(contract.record("n2", to: "ada", ttl: 30))
            var once = contract.record("n3", to: "ada")
            once.metadata.readOnce = true
            try await repository.insert(once)
            var sealedOnly = contract.record("n4", to: "ada")
            sealedOnly.payload = nil
            try await repository.insert(sealedOnly)

            // (id, recipient): stored, someone else's, expired, never stored, sealed only
            let cases = [("n1", "ada"), ("n1", "eve"), ("n2", "ada"), ("n9", "ada"), ("n4", "ada")]
            guard backend == .sqlite else {
                for (id, recipient) in cases {
                    #expect(try immediate.fetchImmediately(id: id, recipientID: recipient, now: now) == nil)
                }
                return
            }
            for (id, recipient) in cases {
                let answered = try immediate.fetchImmediately(id: id, recipientID: recipient, now: now)
                let viaAsync = try await repository.fetch(
                    id: id, recipientID: recipient, deviceID: nil, proven: false, now: now)
                #expect(answered == viaAsync, "\(id) for \(recipient)")
            }
            // A read-once notification changes when fetched: never answered immediately, and still there after asking.
            #expect(try immediate.fetchImmediately(id: "n3", recipientID: "ada", now: now) == nil)
            let after = try await repository.fetch(id: "n3", recipientID: "ada", deviceID: nil, proven: false, now: now)
            guard case .payload = after else {
                Issue.record("the read-once notification was consumed by the immediate fetch: \(after)")
                return
            }
        }
    }
}
