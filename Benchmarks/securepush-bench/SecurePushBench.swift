import ArgumentParser

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
}
