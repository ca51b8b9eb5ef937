import Foundation
import GRDB
import SealedPush
import ServiceCore
import SharedModels
import StoreService
import TestSupport
import Testing

/// Issue 24: erased means gone. After a read-once fetch, none of the notification's stored bytes (its sealed copies'
/// ciphertexts and its at-rest payload) is left in any SQLite file: not in free pages (`secure_delete`), not in the
/// write-ahead log (checkpointed and truncated).
@Suite("erased notifications leave no bytes in the SQLite files")
struct ErasedBytesTests {
    @Test("after a read-once fetch, no 16 bytes of any stored copy are in store.sqlite, -wal or -shm")
    func readOnceLeavesNothing() async throws {
        let directory = TemporaryDirectory.processRootURL.appendingPathComponent("erased-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("store.sqlite").path
        let harness = try await StoreHarness(configuration: StoreConfiguration(databasePath: path))
        let phone = TestDevice()
        let laptop = TestDevice()
        // A payload larger than a page: its at-rest copy spills into overflow pages, which are freed on erasure.
        let payload = String(repeating: "account 4411 balance 9 876,54 EUR; ", count: 200)
        let put = try await harness.put(
            to: "alice", payload: payload, sealedTo: [phone, laptop], sealedOnly: false, readOnce: true)

        // What the files hold for it now: every stored copy's bytes.
        let stored = try await harness.components.sqlite!.read { db in
            try Row.fetchAll(db, sql: "SELECT ciphertext FROM sealed_copy").map { $0[0] as Data }
                + [try Data.fetchOne(db, sql: "SELECT payload FROM notification")!]
        }
        #expect(stored.count == 3 && stored.allSatisfy { $0.count > 64 })
        #expect(try Self.leaks(of: stored, in: directory) > 0, "the check itself finds the copies before the erasure")

        let opened = try await harness.get(
            put.notificationId, device: phone.id, proof: try phone.proof(for: put.notificationId, at: harness.clock.now)
        )
        #expect(try phone.open(opened) == payload)

        #expect(try Self.leaks(of: stored, in: directory) == 0)
    }

    /// How many 16-byte windows (every 16th) of the `copies` occur in the files of `directory`.
    static func leaks(of copies: [Data], in directory: URL) throws -> Int {
        var files = Data()
        for file in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            files += try Data(contentsOf: directory.appendingPathComponent(file))
        }
        return copies.reduce(0) { count, copy in
            count
                + stride(from: 0, to: copy.count - 16, by: 16).filter { start in
                    let window = copy[copy.startIndex + start..<copy.startIndex + start + 16]
                    return files.range(of: window) != nil
                }.count
        }
    }
}
