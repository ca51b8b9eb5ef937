import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The Python 3 a test's peer runs on: the first `python3` on `PATH` that imports the modules the peer needs, else
/// Debian's `/usr/bin/python3`, which sees the `python3-*` packages README's set-up line installs even when another
/// Python (pyenv's, a virtualenv's) comes first on `PATH`. Tests that need one are skipped, naming the packages to
/// install, when there is none: never failed with a timeout that hides the cause.
public enum PythonInterpreter {
    /// The Debian package of each Python module the tests use.
    public static let debianPackages = [
        "h2": "python3-h2", "httpx": "python3-httpx", "prometheus_client": "python3-prometheus-client",
    ]

    private static let found = Mutex<[[String]: String?]>([:])

    /// The path of a Python 3 that imports every module of `modules`; `nil` when none does. Asked once per set.
    public static func path(importing modules: [String] = []) -> String? {
        if let known = found.withLock({ $0[modules] }) { return known }
        let path = candidates().first { imports(modules, $0) }
        found.withLock { $0[modules] = path }
        return path
    }

    /// What to install for `modules`, e.g. `apt-get install python3-h2 python3-httpx`.
    public static func installHint(_ modules: [String]) -> String {
        "apt-get install "
            + (["python3"] + modules.map { debianPackages[$0] ?? "python3-\($0)" }).joined(separator: " ")
    }

    /// Names the one Python the tests may use (a path; empty for none): what a machine without the modules sees.
    public static let overrideVariable = "SECUREPUSH_TEST_PYTHON"

    /// Every executable `python3` on `PATH`, in order, then `/usr/bin/python3`; each once. Only the one
    /// ``overrideVariable`` names when it is set.
    static func candidates() -> [String] {
        let environment = ProcessInfo.processInfo.environment
        if let chosen = environment[overrideVariable] {
            return chosen.isEmpty || !FileManager.default.isExecutableFile(atPath: chosen) ? [] : [chosen]
        }
        let path = environment["PATH"] ?? ""
        var seen: Set<String> = []
        return (path.split(separator: ":").map { "\($0)/python3" } + ["/usr/bin/python3"]).filter {
            FileManager.default.isExecutableFile(atPath: $0) && seen.insert($0).inserted
        }
    }

    /// Whether `python` runs and imports `modules` (its output discarded), within 20 s. Spawned and reaped here,
    /// without Foundation's `Process` (whose own reaping would race a `waitpid`): this runs while tests are planned
    /// (a trait's condition), outside any task.
    public static func imports(_ modules: [String], _ python: String) -> Bool {
        let code = modules.isEmpty ? "pass" : "import " + modules.joined(separator: ", ")
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for descriptor: Int32 in [0, 1, 2] {
            posix_spawn_file_actions_addopen(
                &actions, descriptor, "/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY, 0)
        }
        let words: [String] = [python, "-c", code]
        let arguments: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        defer { for argument in arguments { free(argument) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, python, &actions, nil, arguments, environ) == 0 else { return false }
        var status: Int32 = 0
        for _ in 0..<2000 {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid { return status == 0 }
            if reaped < 0 { return false }
            usleep(10_000)
        }
        kill(pid, SIGKILL)
        _ = waitpid(pid, &status, 0)
        return false
    }
}
