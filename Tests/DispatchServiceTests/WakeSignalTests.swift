import Testing

@testable import DispatchService

@Suite("WakeSignal")
struct WakeSignalTests {
    @Test("a wake before the wait is not lost, and several wakes coalesce into one")
    func wakesAreKeptAndCoalesced() async {
        let signal = WakeSignal()
        signal.wake()
        signal.wake()
        signal.tick()
        #expect(await signal.wait() == .woken(keepalive: true))
        signal.wake()
        #expect(await signal.wait() == .woken(keepalive: false))
    }

    @Test("close ends a waiting stream and every later wait")
    func closeEndsWaiting() async {
        let signal = WakeSignal()
        async let waited = signal.wait()
        try? await Task.sleep(for: .milliseconds(20))
        signal.close()
        #expect(await waited == .closed)
        signal.wake()
        #expect(await signal.wait() == .closed)
    }

    @Test("cancelling the waiting task ends the wait")
    func cancellationEndsWaiting() async {
        let signal = WakeSignal()
        let waiting = Task { await signal.wait() }
        waiting.cancel()
        #expect(await waiting.value == .closed)
    }
}
