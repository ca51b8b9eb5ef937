import Dispatch
import Synchronization

/// The `GET /health` check of one key in a PKCS#11 module: runs the key's probe (a signature or an encryption in the
/// module) on a Dispatch thread, never on the concurrency pool (a network HSM that hangs must not hold its threads),
/// and keeps the answer for a second, so a flood of unauthenticated health checks costs the module one probe a
/// second per key; callers arriving while a probe runs wait for that one.
public final class HardwareKeyProbe: Sendable {
    private struct State {
        var answer: String?
        var answeredAt: ContinuousClock.Instant?
        var running: Task<String, Never>?
    }

    /// How long an answer is reused.
    static let freshFor: Duration = .seconds(1)
    private let probe: @Sendable () -> String
    private let state = Mutex(State())

    /// - Parameter probe: `ok`, or why the key cannot be used; may block.
    public init(_ probe: @escaping @Sendable () -> String) {
        self.probe = probe
    }

    /// `ok`, or the reason the key cannot be used now.
    public func readiness() async -> String {
        let now = ContinuousClock.now
        let task: Task<String, Never> = state.withLock { state in
            if let answer = state.answer, let at = state.answeredAt, now - at < Self.freshFor {
                return Task { answer }
            }
            if let running = state.running { return running }
            let probe = probe
            let running = Task {
                await withCheckedContinuation { continuation in
                    DispatchQueue.global().async { continuation.resume(returning: probe()) }
                }
            }
            state.running = running
            return running
        }
        let answer = await task.value
        state.withLock { state in
            if state.running == task {
                state.running = nil
                state.answer = answer
                state.answeredAt = .now
            }
        }
        return answer
    }
}
