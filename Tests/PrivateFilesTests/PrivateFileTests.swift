import Foundation
import PrivateFiles
import Synchronization
import TestSupport
import Testing

@Suite("PrivateFile: secrets written owner-only and atomically")
struct PrivateFileTests {
    static func mode(_ path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return try #require((attributes[.posixPermissions] as? NSNumber)?.intValue)
    }

    static func isSymbolicLink(_ path: String) -> Bool {
        (try? FileManager.default.attributesOfItem(atPath: path)[.type] as? FileAttributeType) == .typeSymbolicLink
    }

    static func read(_ path: String) throws -> String {
        try String(contentsOfFile: path, encoding: .utf8)
    }

    /// A writer and an observer on threads of their own (not the few that test tasks share, which a busy loop would
    /// hold, and which a loaded machine may not give the observer before the writer is done): the writer starts once
    /// the observer watches, and the observer watches until the writer is done.
    final class Race: Sendable {
        private let state = Mutex((observing: false, writing: true))
        var isWriting: Bool { state.withLock { $0.writing } }

        /// Runs `write` and `observe` at once; returns what `observe` returned.
        func run<T: Sendable>(
            write: @escaping @Sendable () throws -> Void, observe: @escaping @Sendable (Race) -> T
        ) async throws -> T {
            async let observed = Self.onThread {
                self.state.withLock { $0.observing = true }
                return observe(self)
            }
            try await Self.onThread {
                defer { self.state.withLock { $0.writing = false } }
                for _ in 0..<5_000 where !self.state.withLock({ $0.observing }) { usleep(1_000) }
                try write()
            }
            return try await observed
        }

        private static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                Thread { continuation.resume(with: Result { try body() }) }.start()
            }
        }
    }

    @Test("a new file is mode 0600, and the directories it needed are created 0700")
    func modes() throws {
        let directory = try TemporaryDirectory(prefix: "private-file")
        defer { directory.remove() }
        let path = directory.file("data/keys/secret")
        #expect(try PrivateFile.write(Data("s3cret\n".utf8), to: path))
        #expect(try Self.read(path) == "s3cret\n")
        #expect(try Self.mode(path) == 0o600)
        #expect(try Self.mode(directory.file("data/keys")) == 0o700)
        #expect(try Self.mode(directory.file("data")) == 0o700)
    }

    @Test("other permissions are set exactly when asked for (a public certificate), and an existing directory is left")
    func explicitPermissions() throws {
        let directory = try TemporaryDirectory(prefix: "private-file")
        defer { directory.remove() }
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path)
        try PrivateFile.write(Data("certificate".utf8), to: directory.file("ca.pem"), permissions: 0o644)
        #expect(try Self.mode(directory.file("ca.pem")) == 0o644)
        try PrivateFile.createDirectory(directory.path)
        #expect(try Self.mode(directory.path) == 0o755)
    }

    @Test("no moment where a file being written exists readable by others: the temporary file is 0600 from creation")
    func neverReadableByOthers() async throws {
        let directory = try TemporaryDirectory(prefix: "private-file")
        defer { directory.remove() }
        let path = directory.file("secret")
        let contents = Data(repeating: 0x61, count: 1 << 20)
        let (seen, readableByOthers) = try await Race().run {
            for _ in 0..<100 { try PrivateFile.write(contents, to: path) }
        } observe: { race in
            var seen = 0
            var readableByOthers: [String] = []
            while race.isWriting {
                for name in (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [] {
                    var status = stat()
                    guard lstat(directory.file(name), &status) == 0 else { continue }
                    seen += 1
                    if status.st_mode & 0o077 != 0 { readableByOthers.append(name) }
                }
            }
            return (seen, readableByOthers)
        }
        #expect(seen > 0)
        #expect(readableByOthers.isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["secret"])
    }

    @Test("an existing file is replaced atomically: a reader sees the old contents or the new, never part of either")
    func atomicReplace() async throws {
        let directory = try TemporaryDirectory(prefix: "private-file")
        defer { directory.remove() }
        let path = directory.file("credentials.json")
        let old = String(repeating: "o", count: 256 * 1024)
        let new = String(repeating: "n", count: 256 * 1024)
        try PrivateFile.write(Data(old.utf8), to: path)
        let (reads, torn) = try await Race().run {
            for round in 0..<60 { try PrivateFile.write(Data((round % 2 == 0 ? new : old).utf8), to: path) }
        } observe: { race in
            var reads = 0
            var torn = 0
            while race.isWriting {
                let text = (try? Self.read(path)) ?? "missing"
                reads += 1
                if text != old && text != new { torn += 1 }
            }
            return (reads, torn)
        }
        #expect(reads > 0)
        #expect(torn == 0)
        #expect(try Self.read(path) == old)
        #expect(try Self.mode(path) == 0o600)
    }

    @Test("create-only refuses to overwrite: an existing file is kept and nothing is written")
    func createOnlyKeepsExisting() throws {
        let directory = try TemporaryDirectory(prefix: "private-file")
        defer { directory.remove() }
        let path = directory.file("device-key")
        #expect(try PrivateFile.write(Data("first".utf8), to: path, existing: .keep))
        #expect(try PrivateFile.write(Data("second".utf8), to: path, existing: .keep) == false)
        #expect(try Self.read(path) == "first")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["device-key"])
    }

    @Test("create-only does not follow a symbolic link at the path, dangling or not")
    func createOnlyIgnoresSymlinks() throws {
        let directory = try TemporaryDirectory(prefix: "private-file")
        defer { directory.remove() }
        let elsewhere = directory.file("elsewhere")
        let dangling = directory.file("dangling")
        try FileManager.default.createSymbolicLink(atPath: dangling, withDestinationPath: elsewhere)
        #expect(try PrivateFile.write(Data("key".utf8), to: dangling, existing: .keep) == false)
        #expect(!FileManager.default.fileExists(atPath: elsewhere))
        #expect(Self.isSymbolicLink(dangling))

        let victim = directory.file("victim")
        try Data("untouched".utf8).write(to: URL(fileURLWithPath: victim))
        let pointing = directory.file("pointing")
        try FileManager.default.createSymbolicLink(atPath: pointing, withDestinationPath: victim)
        #expect(try PrivateFile.write(Data("key".utf8), to: pointing, existing: .keep) == false)
        #expect(try Self.read(victim) == "untouched")
    }

    @Test("replacing a symbolic link replaces the link itself, never the file it points to")
    func replaceDoesNotFollowSymlinks() throws {
        let directory = try TemporaryDirectory(prefix: "private-file")
        defer { directory.remove() }
        let victim = directory.file("victim")
        try Data("untouched".utf8).write(to: URL(fileURLWithPath: victim))
        let path = directory.file("credentials.json")
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: victim)
        try PrivateFile.write(Data("secret".utf8), to: path)
        #expect(!Self.isSymbolicLink(path))
        #expect(try Self.read(path) == "secret")
        #expect(try Self.mode(path) == 0o600)
        #expect(try Self.read(victim) == "untouched")
    }

    @Test("of many writers creating one file at once, exactly one wins and its contents are the file's")
    func oneCreatorWins() async throws {
        let directory = try TemporaryDirectory(prefix: "private-file")
        defer { directory.remove() }
        let path = directory.file("store-keys")
        let winners = try await withThrowingTaskGroup(of: String?.self) { group in
            for index in 0..<20 {
                group.addTask {
                    try PrivateFile.write(Data("writer \(index)".utf8), to: path, existing: .keep)
                        ? "writer \(index)" : nil
                }
            }
            var winners: [String] = []
            for try await winner in group { if let winner { winners.append(winner) } }
            return winners
        }
        #expect(winners.count == 1)
        #expect(try Self.read(path) == winners.first)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["store-keys"])
    }

    @Test("a failure names the path and leaves no temporary file behind")
    func failureIsClean() throws {
        let directory = try TemporaryDirectory(prefix: "private-file")
        defer { directory.remove() }
        let path = directory.file("secret")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        #expect {
            try PrivateFile.write(Data("x".utf8), to: path)
        } throws: { error in
            (error as? PrivateFileError)?.description.hasPrefix("cannot write \(path): ") == true
        }
        let blocked = directory.file("not-a-directory")
        try Data().write(to: URL(fileURLWithPath: blocked))
        #expect(throws: PrivateFileError.self) { try PrivateFile.write(Data("x".utf8), to: blocked + "/secret") }
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == [
                "not-a-directory", "secret",
            ])
    }
}
