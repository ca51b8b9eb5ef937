import Foundation
import ServiceCore
import Synchronization
import Testing

@Suite("The hsm health check of a key")
struct HardwareKeyProbeTests {
    @Test("a flood of health checks costs the module one probe a second; callers during a probe share it")
    func sharedAndCached() async throws {
        let calls = Atomic<Int>(0)
        let probe = HardwareKeyProbe {
            calls.add(1, ordering: .relaxed)
            usleep(50_000)  // a slow module
            return "ok"
        }
        let answers = await withTaskGroup(of: String.self) { group in
            for _ in 0..<20 { group.addTask { await probe.readiness() } }
            return await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(answers == Array(repeating: "ok", count: 20))
        #expect(calls.load(ordering: .relaxed) == 1)
        #expect(await probe.readiness() == "ok")
        #expect(calls.load(ordering: .relaxed) == 1, "answered from the last second's probe")
        try await Task.sleep(for: .milliseconds(1_100))
        _ = await probe.readiness()
        #expect(calls.load(ordering: .relaxed) == 2)
    }

    @Test("a failing key is the hsm check's answer; no key in a module adds no check")
    func checks() async {
        let failing = HardwareKeyProbe { "token 'securepush' no longer holds key 'audit'" }
        let fine = HardwareKeyProbe { "ok" }
        #expect(
            await HardwareModuleHealth.checks([fine, nil, failing]) == [
                "hsm": "token 'securepush' no longer holds key 'audit'"
            ])
        #expect(await HardwareModuleHealth.checks([fine]) == ["hsm": "ok"])
        #expect(await HardwareModuleHealth.checks([nil, nil]) == [:])
    }
}
