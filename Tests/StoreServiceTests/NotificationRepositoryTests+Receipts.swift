import Foundation
import StoreService
import TestSupport
import Testing

extension NotificationRepositoryTests {
    @Test(
        "receipts: each device's first successful fetch, oldest first; a fetch for no device leaves none",
        arguments: TestPostgres.backends)
    func receipts(backend: TestDatabaseBackend) async throws {
        try await withRepository(backend) { repository in
            let phone = "5d6e7f80-9a1b-4c2d-8e3f-4a5b6c7d8e9f"
            let laptop = "1e2d3c4b-5a69-4788-97a6-b5c4d3e2f1a0"
            try await repository.insert(record("n1"))
            try await repository.insert(record("n2"))
            #expect(try await repository.receipts(id: "n1").isEmpty)
            _ = try await repository.fetch(
                id: "n1", recipientID: "ada", deviceID: nil, proven: false, now: Self.start.addingTimeInterval(1))
            #expect(try await repository.receipts(id: "n1").isEmpty)
            for (device, second) in [(phone, 2.0), (laptop, 3.0), (phone, 4.0)] {
                _ = try await repository.fetch(
                    id: "n1", recipientID: "ada", deviceID: device, proven: false,
                    now: Self.start.addingTimeInterval(second))
            }
            // Someone else's fetch of the id finds nothing and records nothing.
            _ = try await repository.fetch(
                id: "n1", recipientID: "eve", deviceID: laptop, proven: false, now: Self.start.addingTimeInterval(5))
            let receipts = try await repository.receipts(id: "n1")
            #expect(receipts.map(\.deviceID) == [phone, laptop])
            #expect(receipts.map(\.fetchedAt) == [Self.start.addingTimeInterval(2), Self.start.addingTimeInterval(3)])
            #expect(try await repository.receipts(id: "n2").isEmpty)
            #expect(try await repository.receipts(id: "missing").isEmpty)
        }
    }
}
