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

    /// Whether a writer thread is still writing.
    final class Progress: Sendable {
        private let running = Mutex(true)
        var isRunning: Bool { running.withLock { $0 } }
        func finish() { running.withLock { $0 = false } }
    }

    /// Runs `body` on a thread of its own (not one of the few that test tasks share, which a busy loop would hold)
    /// and returns once it has finished; `progress` says when that is.
    static func onThread(_ progress: Progress, _ body: @escaping @Sendable () throws -> Void) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            Thread {
                let result = Result { try body() }
                progress.finish()
                continuation.resume(with: result)
            }.start()
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
        let progress = Progress()
        async let written: Void = Self.onThread(progress) {
            for _ in 0..<100 { try PrivateFile.write(contents, to: path) }
        }
        var seen = 0
        var readableByOthers: [String] = []
        while progress.isRunning {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [] {
                var status = stat()
                guard lstat(directory.file(name), &status) == 0 else { continue }
                seen += 1
                if status.st_mode & 0o077 != 0 { readableByOthers.append(name) }
            }
            await Task.yield()
        }
        try await written
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
        let progress = Progress()
        async let written: Void = Self.onThread(progress) {
            for round in 0..<60 { try PrivateFile.write(Data((round % 2 == 0 ? new : old).utf8), to: path) }
        }
        var reads = 0
        var torn = 0
        while progress.isRunning {
            let text = (try? Self.read(path)) ?? "missing"
            reads += 1
            if text != old && text != new { torn += 1 }
            await Task.yield()
        }
        try await written
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
