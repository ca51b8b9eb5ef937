#if canImport(Glibc)
    import Glibc

    /// How a crashing SecurePush process reports its crash: Swift's backtracer, set by `SWIFT_BACKTRACE`, which the
    /// runtime reads once, as the process starts.
    ///
    /// While the backtracer works, the crashed process waits with its listening sockets open. With the runtime's
    /// defaults (full symbolication with inline frames and source lines, every thread) a large static binary took
    /// minutes, and a supervisor's restart found its ports taken; in a terminal the default also waits for the user at
    /// a debugger prompt. ``settings`` (never interactive, the crashed thread, symbolicated the fast way) take a
    /// fraction of a second to a few seconds, and the backtrace still names every function.
    ///
    /// The runtime looks for its backtracer beside `libswiftCore.so`. A binary linked with `--static-swift-stdlib`
    /// (the image's) has none, so it prints "unable to locate swift-backtrace" and makes no backtrace at all unless
    /// the variable names the toolchain's `swift-backtrace-static`: ``settings(executable:isExecutable:)`` names the
    /// one installed at ``staticBacktracer`` beside the executable (the image puts it there).
    public enum CrashBacktrace {
        /// The variable the Swift runtime reads.
        public static let variable = "SWIFT_BACKTRACE"
        /// What a SecurePush process runs with unless the operator set ``variable`` (to anything, even empty).
        public static let settings = "enable=yes,interactive=no,symbolicate=fast,threads=crashed"
        /// Where a statically linked backtracer is looked for, from the executable's directory: the toolchain's own
        /// layout (`usr/bin`, `usr/libexec/swift/linux`), so `/usr/local/bin/auth-service` finds
        /// `/usr/local/libexec/swift/linux/swift-backtrace-static`.
        public static let staticBacktracer = "../libexec/swift/linux/swift-backtrace-static"

        /// ``settings`` for the program at `executable` (an absolute path), naming the static backtracer when
        /// `isExecutable` finds one at ``staticBacktracer`` from its directory.
        public static func settings(executable: String, isExecutable: (String) -> Bool) -> String {
            guard let slash = executable.lastIndex(of: "/") else { return settings }
            let backtracer = normalized(String(executable[...slash]) + staticBacktracer)
            return isExecutable(backtracer) ? "\(settings),swift-backtrace=\(backtracer)" : settings
        }

        /// When ``variable`` is unset, sets it to ``settings(executable:isExecutable:)`` and runs the program again in
        /// this process (`execv` of the executable `/proc/self/exe` points to: same pid, name, arguments and
        /// environment, so a supervisor, `ps` and `pkill` see nothing). Returns only when nothing had to be done, or
        /// when the program could not be run again (it then carries on with the runtime's defaults). Call it first
        /// thing in `main`, before anything else was started.
        public static func configure() {
            guard getenv(variable) == nil else { return }
            // The real path, not the link: executed through `/proc/self/exe`, the process would be named `exe`.
            var path = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let length = readlink("/proc/self/exe", &path, path.count - 1)
            guard length > 0 else { return }
            let executable = String(decoding: path[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let value = settings(executable: executable) { access($0, X_OK) == 0 }
            guard setenv(variable, value, 1) == 0 else { return }
            execv(path, CommandLine.unsafeArgv)
        }

        /// `path` without `.` and `..` components (the runtime is given a plain absolute path).
        static func normalized(_ path: String) -> String {
            var parts: [Substring] = []
            for part in path.split(separator: "/") where part != "." {
                if part == ".." { _ = parts.popLast() } else { parts.append(part) }
            }
            return "/" + parts.joined(separator: "/")
        }
    }
#endif
