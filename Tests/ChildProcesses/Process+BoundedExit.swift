import Foundation

#if canImport(Glibc)
    import Glibc
#endif

extension Process {
    /// A child that was still running when its time was up; it has been killed (SIGKILL).
    public struct TimedOut: Error, CustomStringConvertible {
        public var description: String
    }

    /// A child that exited (the kernel says so) but whose exit Foundation never reported: its termination handler
    /// never ran and `isRunning` stayed `true`. Reported rather than waited on, so a test fails instead of hanging.
    public struct ExitNotReported: Error, CustomStringConvertible {
        public var description: String
    }

    /// Runs the process and waits for it to exit, at most `limit` (then it is killed and ``TimedOut`` thrown);
    /// returns its exit status. See ``exitStatus(within:)``.
    @discardableResult
    public func runToExit(within limit: Duration = .seconds(300)) async throws -> Int32 {
        try run()
        return try await exitStatus(within: limit)
    }

    /// Waits for the started process to exit without blocking a thread, and returns its exit status (the signal's
    /// number when a signal ended it, as `terminationStatus`).
    ///
    /// Polls every 10 ms rather than trusting the termination handler alone: a lost notification or a child that never
    /// ends must fail one test, not hang the whole suite until CI's limit. Each poll also asks the kernel (`waitid`
    /// with `WNOWAIT`, which leaves the child for Foundation to reap), so a child that exited unnoticed is told apart
    /// from one still running. With a `limit`, a child still running then is killed (SIGKILL) and ``TimedOut`` thrown.
    @discardableResult
    public func exitStatus(within limit: Duration?) async throws -> Int32 {
        let clock = ContinuousClock()
        let deadline = limit.map { clock.now + $0 }
        var exitedUnnoticedSince: ContinuousClock.Instant?
        let pid = processIdentifier
        while isRunning {
            let now = clock.now
            if exitedUnnoticedSince == nil, Self.kernelReportsExit(of: pid) { exitedUnnoticedSince = now }
            if let since = exitedUnnoticedSince, now - since > .seconds(15) {
                throw ExitNotReported(description: "\(commandLine) exited, but Foundation did not report it in 15 s")
            }
            if let deadline, now > deadline {
                // Not once it exited: its pid may be reaped and reused by then.
                if exitedUnnoticedSince == nil { kill(pid, SIGKILL) }
                let killedAt = clock.now
                while isRunning && clock.now - killedAt < .seconds(5) { try await Task.sleep(for: .milliseconds(10)) }
                throw TimedOut(description: "\(commandLine) still ran after \(limit ?? .zero); killed")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        return terminationStatus
    }

    private var commandLine: String {
        ([executableURL?.lastPathComponent ?? "?"] + (arguments ?? []).map { $0.count > 60 ? "…" : $0 })
            .joined(separator: " ")
    }

    /// Whether the child `pid` has exited and waits to be reaped (or was reaped already), without reaping it.
    private static func kernelReportsExit(of pid: Int32) -> Bool {
        #if os(Linux)
            var info = siginfo_t()
            let result = waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT)
            if result == -1 { return errno == ECHILD }
            return info._sifields._sigchld.si_pid == pid
        #else
            return false  // Foundation's own notice only
        #endif
    }
}
