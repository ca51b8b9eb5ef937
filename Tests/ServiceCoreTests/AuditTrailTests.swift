import Crypto
import Foundation
import Logging
import ServiceCore
import SharedModels
import TestSupport
import Testing

/// Keys known to the test: `alice` has one, everyone else none (unknown or erased).
private struct FixedKeyring: AuditKeyring {
    static let alice = SymmetricKey(data: Data(repeating: 7, count: 32))
    static let day = SymmetricKey(data: Data(repeating: 9, count: 32))
    var failing = false

    func userKeys(_ userIDs: Set<String>) async throws -> [String: SymmetricKey] {
        if failing { throw RPCError.unavailable("auth", "down") }
        return userIDs.contains("alice") ? ["alice": Self.alice] : [:]
    }

    func addressKey(day: String) async throws -> SymmetricKey {
        if failing { throw RPCError.unavailable("auth", "down") }
        return Self.day
    }
}

/// One service's trail on a fresh database and checkpoint directory.
private struct TrailFixture {
    let database: ServiceDatabase
    let directory: String
    let key = AuditSigningKey.generate()

    init() throws {
        database = try ServiceDatabase.sqlite(
            path: nil, migrations: [AuditSchema.migration("v1", tables: AuditTables(prefix: "auth"))])
        directory = try TemporaryDirectory(prefix: "audit").path
    }

    func trail(
        checkpointEntries: Int = 1_000, maxPending: Int = 200_000, keyring: any AuditKeyring = FixedKeyring(),
        keyWait: Duration = .seconds(60), signingKey: AuditSigningKey? = nil
    ) -> AuditTrail {
        let key = signingKey ?? key
        var configuration = AuditConfiguration(
            key: .key(key), checkpointDirectory: directory, checkpointEntries: checkpointEntries,
            maxPending: maxPending)
        configuration.keyWait = keyWait
        return AuditTrail(
            repository: repository, keyring: keyring, signingKey: key, configuration: configuration,
            logger: Logger(label: "audit-test"))
    }

    /// A trail with `count` sign-ins committed and its head signed.
    func signedTrail(_ count: Int = 10, signingKey: AuditSigningKey? = nil) async throws -> AuditTrail {
        let trail = trail(signingKey: signingKey)
        for index in 0..<count {
            trail.record("auth.signin.succeeded", ["user": .user("alice"), "attempt": .integer(Int64(index))])
        }
        try await trail.checkpoint()
        return trail
    }

    func verify(files: Bool = true) async throws -> AuditVerification {
        try await AuditVerifier(
            repository: repository,
            files: files ? AuditCheckpointFiles(directory: directory) : nil, publicKey: key.publicKey
        ).verify()
    }

    var repository: SQLAuditRepository {
        SQLAuditRepository(database: database.sql, service: "auth", tables: AuditTables(prefix: "auth"))
    }

    func execute(_ sql: String, _ binds: [any SQLBindable] = []) async throws {
        _ = try await database.sql.execute(sql, binds)
    }

    func body(_ sequence: Int) async throws -> String {
        try #require(try await database.sql.readOne("SELECT body FROM auth_audit_entry WHERE sequence = ?", [sequence]))
            .decode(0)
    }
}

@Suite("Audit trail: hash chain, signed checkpoints, pseudonyms, verification")
struct AuditTrailTests {
    @Test("an untouched trail verifies: genesis first, every entry chained and covered by a signed checkpoint")
    func untouched() async throws {
        let fixture = try TrailFixture()
        let trail = try await fixture.signedTrail(10)
        let report = try await fixture.verify()
        #expect(report.fault == nil)
        #expect(report.chains == 1)
        #expect(report.entries == 11)
        #expect(report.unsignedEntries == 0)
        #expect(report.checkpoints == 1, "the first commit (genesis and the 10) is signed at once")
        #expect(try await fixture.body(1).contains(#""type":"audit.chain.started""#))
        let file = fixture.directory + "/auth/\(trail.chain).jsonl"
        #expect(FileManager.default.fileExists(atPath: file))
        #expect((try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int) == 0o600)
    }

    @Test("people appear as HMACs: u: under their own key, d: under the day's key when they have none")
    func pseudonyms() async throws {
        let fixture = try TrailFixture()
        let trail = fixture.trail()
        trail.record(
            "auth.signin.failed",
            [
                "user": .user("alice"), "username": .username("alice.smith", owner: "alice"),
                "stranger": .username("mallory", owner: nil), "address": .address("192.0.2.7"),
                "client": .text("backend-1"),
            ])
        try await trail.flush()
        let body = try await fixture.body(2)
        for clear in ["alice", "mallory", "192.0.2.7"] { #expect(!body.contains(clear)) }
        #expect(body.contains(#""client":"backend-1""#))
        let mac = { (text: String, key: SymmetricKey) in
            Data(HMAC<SHA256>.authenticationCode(for: Data(text.utf8), using: key)).base64URLEncodedString()
        }
        #expect(body.contains(#""user":"u:\#(mac("alice", FixedKeyring.alice))""#))
        #expect(body.contains(#""username":"u:\#(mac("alice.smith", FixedKeyring.alice))""#))
        #expect(body.contains(#""stranger":"d:\#(mac("mallory", FixedKeyring.day))""#))
        #expect(body.contains(#""address":"d:\#(mac("192.0.2.7", FixedKeyring.day))""#))
    }

    @Test("one byte changed in an entry: named by its sequence number")
    func byteChanged() async throws {
        let fixture = try TrailFixture()
        let trail = try await fixture.signedTrail()
        try await fixture.execute(
            "UPDATE auth_audit_entry SET body = replace(body, '\"attempt\":4', '\"attempt\":5') WHERE sequence = 6")
        let fault = try #require(try await fixture.verify().fault)
        #expect(fault.chain == trail.chain)
        #expect(fault.sequence == 6)
        #expect(fault.reason.hasPrefix("hash does not match"))
    }

    @Test("an entry rewritten with its hash and every later entry re-chained: its checkpoint no longer matches")
    func rewrittenAndRechained() async throws {
        let fixture = try TrailFixture()
        _ = try await fixture.signedTrail()
        // The attacker knows the format: changes entry 4 and recomputes every hash after it, in the database.
        var previous = try #require(
            try await fixture.database.sql.readOne("SELECT hash FROM auth_audit_entry WHERE sequence = 3", [])
        ).decode(0, as: String.self)
        for sequence in 4...11 {
            var body = try await fixture.body(sequence)
            let old = try #require(body.firstRange(of: #/"prev":"[^"]*"/#))
            body.replaceSubrange(old, with: #""prev":"\#(previous)""#)
            if sequence == 4 { body = body.replacingOccurrences(of: "\"attempt\":2", with: "\"attempt\":7") }
            let hash = AuditEntry.hash(of: Array(body.utf8))
            try await fixture.execute(
                "UPDATE auth_audit_entry SET body = ?, hash = ? WHERE sequence = ?", [body, hash, sequence])
            previous = hash
        }
        try await fixture.execute("DELETE FROM auth_audit_checkpoint")
        let fault = try #require(try await fixture.verify().fault)
        #expect(fault.sequence == 11)
        #expect(fault.reason == "the entry differs from the one its checkpoint signed")
    }

    @Test("an entry deleted: the gap is named")
    func entryDeleted() async throws {
        let fixture = try TrailFixture()
        _ = try await fixture.signedTrail()
        try await fixture.execute("DELETE FROM auth_audit_entry WHERE sequence = 5")
        let fault = try #require(try await fixture.verify().fault)
        #expect(fault.sequence == 5)
        #expect(fault.reason == "entry missing (the next one stored is 6)")
    }

    @Test("two entries swapped: the first of them is named")
    func swapped() async throws {
        let fixture = try TrailFixture()
        _ = try await fixture.signedTrail()
        try await fixture.execute("UPDATE auth_audit_entry SET sequence = -1 WHERE sequence = 3")
        try await fixture.execute("UPDATE auth_audit_entry SET sequence = 3 WHERE sequence = 4")
        try await fixture.execute("UPDATE auth_audit_entry SET sequence = 4 WHERE sequence = -1")
        let fault = try #require(try await fixture.verify().fault)
        #expect(fault.sequence == 3)
        #expect(fault.reason.hasPrefix("the entry's body names another place"))
    }

    @Test("the tail truncated (and the database's checkpoints with it): the checkpoint file outside catches it")
    func tailTruncated() async throws {
        let fixture = try TrailFixture()
        _ = try await fixture.signedTrail()
        try await fixture.execute("DELETE FROM auth_audit_entry WHERE sequence > 7")
        try await fixture.execute("DELETE FROM auth_audit_checkpoint WHERE sequence > 7")
        #expect(try await fixture.verify(files: false).fault == nil, "the database alone cannot tell")
        let fault = try #require(try await fixture.verify().fault)
        #expect(fault.sequence == 8)
        #expect(fault.reason == "the chain ends at 7 but a checkpoint signed entry 11 (truncated)")
    }

    @Test("a forged checkpoint (signed by another key) is refused, in the database or in the file")
    func forgedCheckpoint() async throws {
        let fixture = try TrailFixture()
        let trail = try await fixture.signedTrail()
        let head = try #require(
            try await fixture.database.sql.readOne("SELECT hash FROM auth_audit_entry WHERE sequence = 11", [])
        ).decode(0, as: String.self)
        var forged = AuditCheckpoint(
            service: "auth", chain: trail.chain, sequence: 11, hash: head, signedAt: 1, keyID: "", signature: "")
        try AuditSigningKey.generate().sign(&forged)
        forged.keyID = fixture.key.keyID
        try await fixture.execute("DELETE FROM auth_audit_checkpoint")
        let path = fixture.directory + "/auth/\(trail.chain).jsonl"
        try (forged.jsonLine + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        let fault = try #require(try await fixture.verify().fault)
        #expect(fault.sequence == 11)
        #expect(fault.reason.hasPrefix("checkpoint signature does not verify"))

        try "not a checkpoint\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(try await fixture.verify().fault?.reason == "malformed checkpoint line at \(path):1")
    }

    @Test("a key replaced between two runs (moved into a module, say): verified with both keys, not with either alone")
    func replacedKey() async throws {
        let fixture = try TrailFixture()
        _ = try await fixture.signedTrail(3)
        let newKey = AuditSigningKey.generate()
        _ = try await fixture.signedTrail(4, signingKey: newKey)
        let files = AuditCheckpointFiles(directory: fixture.directory)
        let both = try await AuditVerifier(
            repository: fixture.repository, files: files, publicKeys: [fixture.key.publicKey, newKey.publicKey]
        ).verify()
        #expect(both.fault == nil)
        #expect(both.chains == 2)
        for key in [fixture.key, newKey] {
            let one = try await AuditVerifier(repository: fixture.repository, files: files, publicKey: key.publicKey)
                .verify()
            #expect(one.fault?.reason.hasPrefix("checkpoint signature does not verify under key \(key.keyID)") == true)
        }
    }

    @Test("a restart starts a second chain; both verify")
    func restart() async throws {
        let fixture = try TrailFixture()
        let first = try await fixture.signedTrail(3)
        let second = try await fixture.signedTrail(4)
        #expect(first.chain != second.chain)
        let report = try await fixture.verify()
        #expect(report.fault == nil)
        #expect(report.chains == 2)
        #expect(report.entries == 9)
    }

    @Test("a checkpoint every SECUREPUSH_AUDIT_CHECKPOINT_ENTRIES entries, without being asked")
    func checkpointCadence() async throws {
        let fixture = try TrailFixture()
        let trail = fixture.trail(checkpointEntries: 5)
        try await trail.flush()  // genesis, signed at once
        for round in 0..<3 {
            for index in 0..<5 { trail.record("store.fetch", ["n": .integer(Int64(round * 5 + index))]) }
            try await trail.flush()
        }
        let signed = try await fixture.database.sql.read(
            "SELECT sequence FROM auth_audit_checkpoint ORDER BY sequence", []
        )
        .map { try $0.decode(0, as: Int64.self) }
        #expect(signed == [1, 6, 11, 16])
        #expect(try await fixture.verify().unsignedEntries == 0)
    }

    @Test(
        "auth unreachable: entries wait (kept, not written); past keyWait they are written under a day key of this process's own"
    )
    func keyringDown() async throws {
        let fixture = try TrailFixture()
        let waiting = fixture.trail(keyring: FixedKeyring(failing: true))
        waiting.record("push.send", ["recipient": .user("alice")])
        await #expect(throws: RPCError.self) { try await waiting.flush() }
        #expect(try await fixture.database.sql.read("SELECT 1 FROM auth_audit_entry", []).isEmpty)

        let trail = fixture.trail(keyring: FixedKeyring(failing: true), keyWait: .zero)
        trail.record("push.send", ["recipient": .user("alice")])
        try await trail.flush()
        let body = try await fixture.body(2)
        #expect(body.contains(#""recipient":"d:"#))
        #expect(!body.contains("alice"))
    }

    @Test("while the database cannot take entries, at most maxPending wait; the rest are dropped, not blocking")
    func boundedPending() async throws {
        let fixture = try TrailFixture()
        let trail = fixture.trail(maxPending: 3)
        for index in 0..<5 { trail.record("store.fetch", ["n": .integer(Int64(index))]) }
        try await trail.flush()
        let count = try #require(try await fixture.database.sql.readOne("SELECT COUNT(*) FROM auth_audit_entry", []))
            .decode(0, as: Int64.self)
        #expect(count == 4, "genesis and the 3 that fitted")
    }
}

@Suite("Audit retention: cut entries, signed, verified across")
struct AuditRetentionTests {
    @Test(
        "a retention cut removes old entries of every chain and still verifies; a later cut restates the earlier ones")
    func verifiesAcrossCuts() async throws {
        let fixture = try TrailFixture()
        _ = try await fixture.signedTrail(5)
        let live = try await fixture.signedTrail(4)
        // Everything recorded so far is older than the cut.
        try await Task.sleep(for: .milliseconds(5))
        let deleted = try await live.applyRetention(before: Date())
        #expect(deleted == 6 + 5)
        var report = try await fixture.verify()
        #expect(report.fault == nil, "\(String(describing: report.fault))")
        #expect(report.chains == 1, "the first chain is gone whole; its checkpoint file is covered by the cut")

        live.record("store.fetch", ["n": .integer(1)])
        try await live.checkpoint()
        try await Task.sleep(for: .milliseconds(5))
        let between = Date()
        try await Task.sleep(for: .milliseconds(5))
        live.record("store.fetch", ["n": .integer(2)])
        try await live.checkpoint()
        // The second cut takes the first cut's own entries with it, and states the live chain's cut again.
        #expect(try await live.applyRetention(before: between) >= 2)
        report = try await fixture.verify()
        #expect(report.fault == nil, "\(String(describing: report.fault))")
        let cuts = try await fixture.database.sql.read(
            "SELECT body FROM auth_audit_entry WHERE type = 'audit.retention.cut'", [])
        #expect(cuts.count == 1)

        // Entries removed without a cut are still caught.
        let first = try #require(
            try await fixture.database.sql.readOne("SELECT MIN(sequence) FROM auth_audit_entry", [])
        )
        .decode(0, as: Int64.self)
        try await fixture.execute("DELETE FROM auth_audit_entry WHERE sequence = ?", [first])
        #expect(try await fixture.verify().fault?.reason.contains("no retention cut names them") == true)
    }
}
