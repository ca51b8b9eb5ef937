import Synchronization
import TestSupport
import Testing

@testable import DispatchService

@Suite("WakeUpSignal")
struct WakeUpSignalTests {
    /// How a wait under test ended: with its value, or not within the limit (a wait that never ends: a leaked
    /// continuation). Keeps a broken signal from hanging the test run.
    enum Bounded<Value: Equatable & Sendable>: Equatable {
        case returned(Value)
        case stillWaiting
    }

    final class Box<Value: Sendable>: Sendable {
        let value = Mutex<Value?>(nil)
    }

    static func bounded<Value: Equatable & Sendable>(
        _ limit: Duration = .seconds(10), _ body: @escaping @Sendable () async -> Value
    ) async -> Bounded<Value> {
        let box = Box<Value>()
        let task = Task {
            let value = await body()
            box.value.withLock { $0 = value }
        }
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if let value = box.value.withLock({ $0 }) { return .returned(value) }
            try? await Task.sleep(for: .milliseconds(5))
        }
        task.cancel()
        return .stillWaiting
    }

    @Test("a wake before the wait is not lost, and several wakes coalesce into one")
    func wakesAreKeptAndCoalesced() async {
        let signal = WakeUpSignal()
        signal.wake()
        signal.wake()
        #expect(await Self.bounded { await signal.wait(upTo: .seconds(10)) } == .returned(.woken))
        #expect(await Self.bounded { await signal.wait(upTo: .milliseconds(20)) } == .returned(nil))
    }

    @Test("close ends every waiting task and every later wait")
    func closeEndsWaiting() async {
        let signal = WakeUpSignal()
        let waiting = (0..<3).map { _ in Task { await signal.wait(upTo: .seconds(60)) } }
        #expect(await eventually { signal.waitingCount == 3 })
        signal.close()
        for waiter in waiting { #expect(await Self.bounded { await waiter.value } == .returned(.closed)) }
        signal.wake()
        #expect(await signal.wait(upTo: .seconds(60)) == .closed)
        #expect(signal.isClosed)
    }

    @Test("a timed wait returns nil when its time passes and leaves the signal usable")
    func timeoutLeavesSignalUsable() async {
        let signal = WakeUpSignal()
        let started = ContinuousClock.now
        #expect(await Self.bounded { await signal.wait(upTo: .milliseconds(50)) } == .returned(nil))
        #expect(ContinuousClock.now - started >= .milliseconds(50))
        #expect(!signal.isClosed)
        signal.wake()
        #expect(await Self.bounded { await signal.wait(upTo: .seconds(10)) } == .returned(.woken))
    }

    @Test("cancelling a timed wait ends it promptly and leaves the signal usable")
    func cancelledTimedWaitLeavesSignalUsable() async {
        let signal = WakeUpSignal()
        let waiting = Task { await signal.wait(upTo: .seconds(60)) }
        try? await Task.sleep(for: .milliseconds(20))
        waiting.cancel()
        #expect(await Self.bounded(.seconds(5)) { await waiting.value } == .returned(nil))
        #expect(!signal.isClosed)
        signal.wake()
        #expect(await Self.bounded { await signal.wait(upTo: .seconds(10)) } == .returned(.woken))
    }

    @Test("a wake reaches every task waiting at that moment")
    func wakeReachesEveryWaiter() async {
        let signal = WakeUpSignal()
        let waiting = (0..<10).map { _ in Task { await signal.wait(upTo: .seconds(60)) } }
        #expect(await eventually { signal.waitingCount == 10 })
        signal.wake()
        for waiter in waiting {
            #expect(await Self.bounded { await waiter.value } == .returned(.woken))
        }
    }

    @Test("many waiters, wakes, timeouts and cancellations at once: every wait ends, none is resumed twice")
    func manyAtOnce() async {
        // A continuation resumed twice traps (the test process dies); one leaked never ends its wait, so not every
        // waiter finishes within the bound.
        let signal = WakeUpSignal()
        let waiters = 40
        let rounds = 50
        let finished = await Self.bounded(.seconds(30)) {
            await withTaskGroup(of: Bool.self) { group in
                for index in 0..<waiters {
                    group.addTask {
                        for round in 0..<rounds {
                            let waiting = Task { await signal.wait(upTo: .milliseconds(1 + (index + round) % 3)) }
                            switch (index + round) % 3 {
                            case 0: waiting.cancel()  // before or as it starts waiting
                            case 1:
                                await Task.yield()
                                waiting.cancel()  // while it waits, or as a wake or its time ends it
                            default: break  // woken, or its time runs out
                            }
                            _ = await waiting.value
                        }
                        return true
                    }
                }
                group.addTask {
                    // Spaced out, and over before the waiters are: waits also time out and are cancelled while
                    // nothing is posted, so a waiter left behind would never be resumed.
                    for _ in 0..<(rounds / 2) {
                        signal.wake()
                        try? await Task.sleep(for: .milliseconds(1))
                    }
                    return false
                }
                var finished = 0
                for await isWaiter in group where isWaiter { finished += 1 }
                return finished
            }
        }
        #expect(finished == .returned(waiters))
        #expect(!signal.isClosed)
    }
}
