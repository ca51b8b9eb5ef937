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
    public enum CrashBacktrace {
        /// The variable the Swift runtime reads.
        public static let variable = "SWIFT_BACKTRACE"
        /// What a SecurePush process runs with unless the operator set ``variable`` (to anything, even empty).
        public static let settings = "enable=yes,interactive=no,symbolicate=fast,threads=crashed"

        /// When ``variable`` is unset, sets it to ``settings`` and runs the program again in this process (`execv`
        /// of the executable `/proc/self/exe` points to: same pid, name, arguments and environment, so a supervisor,
        /// `ps` and `pkill` see nothing). Returns only when nothing had to be done, or when the program could not be
        /// run again (it then carries on with the runtime's defaults). Call it first thing in `main`, before anything
        /// else was started.
        public static func configure() {
            guard getenv(variable) == nil else { return }
            // The real path, not the link: executed through `/proc/self/exe`, the process would be named `exe`.
            var path = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let length = readlink("/proc/self/exe", &path, path.count - 1)
            guard length > 0, setenv(variable, settings, 1) == 0 else { return }
            execv(path, CommandLine.unsafeArgv)
        }
    }
#endif
