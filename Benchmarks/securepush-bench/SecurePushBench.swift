import ArgumentParser
import Foundation
import ServiceCore

/// `securepush-bench`: the Swift half of `Benchmarks/run.sh` — load generators that need a real client
/// (benchmark 2, the send path, plays backend and device) or an in-process provider mock (benchmark 3, fan-out
/// into the APNs mock). `Benchmarks/bench.py` starts the services and runs these; see `Benchmarks/README.md`.
@main
struct SecurePushBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "securepush-bench",
        abstract: "Load generators for the SecurePush benchmarks (run by Benchmarks/run.sh).",
        subcommands: [SendCommand.self, FanOutCommand.self]
    )

    /// Sets malloc as the services set it (``MallocTuning``) before running the command: the load generators and the
    /// APNs mock share the services' two cores, and would otherwise spend them giving memory back and faulting it in.
    static func main() async {
        #if canImport(Glibc)
            MallocTuning.apply(environment: ProcessInfo.processInfo.environment)
        #endif
        do {
            var command = try parseAsRoot()
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }
}
