import DispatchService
import Foundation
import SharedModels
import Synchronization
import Testing

/// A remote push provider whose outcomes are scripted call by call. It records every job it is handed, counts
/// attempts in flight (and the most at once), can hold attempts at a gate, and fails the test loudly when called
/// more often than scripted.
final class ScriptedProvider: RemotePushProvider {
    let platform: Platform

    private struct State {
        var script: [DeliveryOutcome]
        var jobs: [DeliveryJob] = []
        var inFlight = 0
        var maxInFlight = 0
        var gateClosed = false
        var held: [UUID: CheckedContinuation<Void, Never>] = [:]
        var shutdowns = 0
    }

    private let state: Mutex<State>

    /// How long an attempt may wait at the gate before the test is failed (so a forgotten gate cannot hang it).
    static let gateLimit: Duration = .seconds(15)

    init(platform: Platform = .apns, script: [DeliveryOutcome] = []) {
        self.platform = platform
        state = Mutex(State(script: script))
    }

    /// Every job handed to `deliver`, in call order.
    var jobs: [DeliveryJob] { state.withLock { $0.jobs } }
    /// The most attempts that were in flight at once.
    var maxInFlight: Int { state.withLock { $0.maxInFlight } }
    /// Attempts waiting at the gate now.
    var heldCount: Int { state.withLock { $0.held.count } }
    /// How often `shutdown()` was called.
    var shutdowns: Int { state.withLock { $0.shutdowns } }
    /// Outcomes not used yet.
    var remainingScript: Int { state.withLock { $0.script.count } }

    /// Appends outcomes for later calls.
    func script(_ outcomes: DeliveryOutcome...) {
        state.withLock { $0.script += outcomes }
    }

    /// Holds every following attempt until `openGate()`.
    func closeGate() {
        state.withLock { $0.gateClosed = true }
    }

    /// Lets held attempts (and later ones) return their outcomes.
    func openGate() {
        let held = state.withLock { state in
            state.gateClosed = false
            defer { state.held = [:] }
            return Array(state.held.values)
        }
        for continuation in held { continuation.resume() }
    }

    func validateToken(_ token: String?) throws(DispatchError) -> String? {
        guard let token, !token.isEmpty else { throw .invalidField("token", "is required for \(platform)") }
        return token
    }

    /// Scripted outcomes come from no service: nothing is told to `responses`.
    func deliver(_ job: DeliveryJob, responses: ProviderResponses) async -> DeliveryOutcome {
        let (outcome, mustWait): (DeliveryOutcome?, Bool) = state.withLock { state in
            state.jobs.append(job)
            state.inFlight += 1
            state.maxInFlight = max(state.maxInFlight, state.inFlight)
            let outcome = state.script.isEmpty ? nil : state.script.removeFirst()
            return (outcome, state.gateClosed)
        }
        if mustWait { await holdAtGate() }
        state.withLock { $0.inFlight -= 1 }
        guard let outcome else {
            Issue.record("ScriptedProvider(\(platform)): unscripted call for \(job.notificationID) (#\(jobs.count))")
            return .failed(reason: "unscripted call")
        }
        return outcome
    }

    func shutdown() async {
        state.withLock { $0.shutdowns += 1 }
    }

    /// Waits at the gate, ignoring cancellation (as a hung request would), for at most `gateLimit`.
    private func holdAtGate() async {
        let id = UUID()
        let watchdog = Task { [self] in
            try await Task.sleep(for: Self.gateLimit)
            let continuation = state.withLock { $0.held.removeValue(forKey: id) }
            if let continuation {
                Issue.record("ScriptedProvider(\(platform)): an attempt waited at the gate for \(Self.gateLimit)")
                continuation.resume()
            }
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let open = state.withLock { state in
                if state.gateClosed { state.held[id] = continuation }
                return !state.gateClosed
            }
            if open { continuation.resume() }
        }
        watchdog.cancel()
    }
}
