import HTTP2Core
import Testing

@Suite("IntervalGate: at most once per interval")
struct IntervalGateTests {
    @Test("opens the first time, stays shut within the interval, opens again once it has passed")
    func oncePerInterval() {
        let gate = IntervalGate(interval: .seconds(60))
        let start = ContinuousClock.now
        #expect(gate.open(now: start))
        #expect(!gate.open(now: start))
        #expect(!gate.open(now: start + .seconds(59)))
        #expect(gate.open(now: start + .seconds(60)))
        #expect(!gate.open(now: start + .seconds(61)), "the interval counts from the last opening")
        #expect(!gate.open(now: start + .seconds(30)), "an instant before the last opening does not open it")
    }
}
