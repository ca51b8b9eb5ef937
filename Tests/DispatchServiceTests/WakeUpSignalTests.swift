import Synchronization
import Testing

@testable import DispatchService

@Suite("WakeUpSignal")
struct WakeUpSignalTests {
    @Test("a wake before the wait is not lost, and several wakes coalesce into one")
    func wakesAreKeptAndCoalesced() async {
        let signal = WakeUpSignal()
        signal.wake()
        signal.wake()
        signal.tick()
        #expect(await signal.wait() == .woken(keepalive: true))
        signal.wake()
        #expect(await signal.wait() == .woken(keepalive: false))
        signal.wake()
        signal.wake()
        #expect(await signal.wait(upTo: .seconds(10)) == .woken(keepalive: false))
        #expect(await signal.wait(upTo: .milliseconds(20)) == nil)
    }

    @Test("close ends a waiting stream and every later wait")
    func closeEndsWaiting() async {
        let signal = WakeUpSignal()
        async let waited = signal.wait()
        async let timed = signal.wait(upTo: .seconds(60))
        try? await Task.sleep(for: .milliseconds(20))
        signal.close()
        #expect(await waited == .closed)
        #expect(await timed == .closed)
        signal.wake()
        #expect(await signal.wait() == .closed)
        #expect(await signal.wait(upTo: .seconds(60)) == .closed)
    }

    @Test("cancelling the waiting task ends a stream's wait promptly and closes the signal")
    func cancellationEndsWaiting() async {
        let signal = WakeUpSignal()
        let waiting = Task { await signal.wait() }
        try? await Task.sleep(for: .milliseconds(20))
        let cancelled = ContinuousClock.now
        waiting.cancel()
        #expect(await waiting.value == .closed)
        #expect(ContinuousClock.now - cancelled < .seconds(5))
        #expect(signal.isClosed)
    }

    @Test("cancelling one of several stream waits closes the signal for all of them")
    func cancellationClosesForEveryWaiter() async {
        let signal = WakeUpSignal()
        let others = (0..<20).map { _ in Task { await signal.wait() } }
        let cancelled = Task { await signal.wait() }
        try? await Task.sleep(for: .milliseconds(20))
        cancelled.cancel()
        #expect(await cancelled.value == .closed)
        for other in others { #expect(await other.value == .closed) }
    }

    @Test("a timed wait returns nil when its time passes and leaves the signal usable")
    func timeoutLeavesSignalUsable() async {
        let signal = WakeUpSignal()
        let started = ContinuousClock.now
        #expect(await signal.wait(upTo: .milliseconds(50)) == nil)
        #expect(ContinuousClock.now - started >= .milliseconds(50))
        #expect(!signal.isClosed)
        signal.wake()
        #expect(await signal.wait(upTo: .seconds(10)) == .woken(keepalive: false))
    }

    @Test("cancelling a timed wait ends it promptly and leaves the signal usable")
    func cancelledTimedWaitLeavesSignalUsable() async {
        let signal = WakeUpSignal()
        let waiting = Task { await signal.wait(upTo: .seconds(60)) }
        try? await Task.sleep(for: .milliseconds(20))
        let cancelled = ContinuousClock.now
        waiting.cancel()
        #expect(await waiting.value == nil)
        #expect(ContinuousClock.now - cancelled < .seconds(5))
        #expect(!signal.isClosed)
        signal.wake()
        #expect(await signal.wait(upTo: .seconds(10)) == .woken(keepalive: false))
    }

    @Test("a wake reaches every task waiting at that moment")
    func wakeReachesEveryWaiter() async {
        let signal = WakeUpSignal()
        let waiting = (0..<10).map { _ in Task { await signal.wait(upTo: .seconds(60)) } }
        try? await Task.sleep(for: .milliseconds(50))
        signal.wake()
        for waiter in waiting { #expect(await waiter.value == .woken(keepalive: false)) }
    }

    @Test("many waiters, wakes, timeouts and cancellations at once: every wait ends, none is resumed twice")
    func manyAtOnce() async {
        // A continuation resumed twice traps (the test process dies); one leaked never ends its wait, so `finished`
        // stays short of the number of waiters and the bounded loop below reports it.
        let signal = WakeUpSignal()
        let waiters = 40
        let rounds = 50
        let finished = Mutex(0)
        let run = Task {
            await withTaskGroup(of: Bool.self) { group in
                for index in 0..<waiters {
                    group.addTask {
                        for round in 0..<rounds {
                            let waiting = Task { await signal.wait(upTo: .milliseconds(1 + (index + round) % 3)) }
                            if (index + round) % 2 == 0 { waiting.cancel() }
                            _ = await waiting.value
                        }
                        return true
                    }
                }
                group.addTask {
                    for round in 0..<(waiters * rounds) {
                        signal.wake()
                        if round % 8 == 0 { await Task.yield() }
                    }
                    return false
                }
                for await isWaiter in group where isWaiter { finished.withLock { $0 += 1 } }
            }
        }
        var allEnded = false
        for _ in 0..<1_500 where !allEnded {
            allEnded = finished.withLock { $0 } == waiters
            if !allEnded { try? await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(allEnded, "\(finished.withLock { $0 }) of \(waiters) waiters ended")
        if allEnded { await run.value } else { run.cancel() }
        #expect(!signal.isClosed)
    }
}
