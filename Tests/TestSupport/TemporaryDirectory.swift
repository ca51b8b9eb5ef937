import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A fresh directory for a test, inside this process's ``TemporaryDirectory/processRoot``; removed by `remove()`,
/// and in any case with the whole root when the process exits.
///
/// Tests hand paths to services, peers and child processes whose lifetimes outlast a `defer` (a certificate a
/// server still reads, a key file a child process opens), so not every fixture can remove its directory the moment
/// the test ends. The root is what makes that safe: nothing a test writes stays in the system's temporary directory
/// after the test process ends normally (a run of the suite used to leave ~20 directories with keys and
/// certificates in `/tmp`).
public struct TemporaryDirectory: Sendable {
    /// Where it is.
    public let path: String

    /// Creates it; `prefix` names the tests it belongs to.
    public init(prefix: String = "securepush-tests") throws {
        path = Self.processRoot + "/\(prefix)-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// The path of `name` inside.
    public func file(_ name: String) -> String { path + "/" + name }

    /// Deletes it and everything in it.
    public func remove() { try? FileManager.default.removeItem(atPath: path) }

    /// One directory per test process under the system's temporary directory, holding every
    /// ``TemporaryDirectory``; created on first use and removed, with everything in it, when the process exits
    /// (`atexit`: a crash or `SIGKILL` leaves it behind, named with the process id to say whose it was).
    public static var processRoot: String { root.path }

    /// ``processRoot`` as a file URL: where a test puts a file or directory it names itself.
    public static var processRootURL: URL { URL(fileURLWithPath: root.path, isDirectory: true) }

    private static let root: ProcessRoot = ProcessRoot()

    /// The root's path; its removal is registered with `atexit` when it is first used.
    private final class ProcessRoot: Sendable {
        let path: String

        init() {
            path =
                FileManager.default.temporaryDirectory
                .appendingPathComponent("securepush-tests-\(getpid())-\(UUID().uuidString.prefix(8))").path
            do {
                try FileManager.default.createDirectory(
                    atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                // Every test writing a file would fail later, each with a message naming its own path.
                fatalError("the test process's temporary directory \(path) cannot be made: \(error)")
            }
            // A C function pointer captures nothing: the handler reads the root, made by then.
            atexit { try? FileManager.default.removeItem(atPath: TemporaryDirectory.processRoot) }
        }
    }
}
