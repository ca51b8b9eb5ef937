import ChildProcesses
import Foundation
import Testing

/// The tests' peers are waited on with a limit: a peer that never ends fails its test instead of hanging the suite.
@Suite("Child processes are waited on with a limit")
struct SubprocessTests {
    @Test("the exit status is returned, a signal's number when a signal ended it")
    func exitStatus() async throws {
        #expect(try await Subprocess.run("/bin/sh", ["-c", "echo out; echo err >&2; exit 3"]).status == 3)
        let result = try await Subprocess.run("/bin/sh", ["-c", "echo out; echo err >&2"])
        #expect(result.output == "out\n" && result.errorOutput == "err\n")
        #expect(try await Subprocess.run("/bin/sh", ["-c", "kill -KILL $$"]).status == SIGKILL)
    }

    @Test("a child still running at its limit is killed and the wait throws")
    func limit() async throws {
        let started = ContinuousClock.now
        await #expect(throws: Process.TimedOut.self) {
            _ = try await Subprocess.run("/bin/sleep", ["60"], limit: .milliseconds(300))
        }
        #expect(ContinuousClock.now - started < .seconds(20))
    }
}
