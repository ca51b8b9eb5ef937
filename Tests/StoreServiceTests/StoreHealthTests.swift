import Foundation
import Logging
import ServiceCore
import ServiceLifecycle
import SharedModels
import StoreService
import Testing

@Suite("health and signing keys")
struct StoreHealthTests {
    @Test("health reports keys not ready until they are loaded, then ok")
    func readinessAfterKeysLoad() async throws {
        let harness = try await StoreHarness(loadKeys: false)
        let before = await harness.components.health()
        #expect(before["database"] == "ok")
        #expect(before["keys"] != nil && before["keys"] != "ok")

        #expect(await harness.components.verifier.refresh())
        #expect(await harness.components.health() == ["database": "ok", "keys": "ok"])
    }

    @Test("the key loader keeps retrying while auth is down, and health turns ok once auth is up")
    func loaderRetriesUntilAuthIsUp() async throws {
        let harness = try await StoreHarness(loadKeys: false, authIsUp: false)
        let loader = SigningKeyLoader(
            verifier: harness.components.verifier,
            initialRetryDelay: .milliseconds(10),
            maxRetryDelay: .milliseconds(20),
            logger: .quiet
        )
        let group = ServiceGroup(services: [loader], logger: .quiet)
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            var polls = 0
            while harness.auth.requestCount < 3, polls < 500 {
                try await Task.sleep(for: .milliseconds(10))
                polls += 1
            }
            #expect(harness.auth.requestCount >= 3)
            #expect(await harness.components.health()["keys"] != "ok")

            harness.auth.setUp(true)
            polls = 0
            while await harness.components.health()["keys"] != "ok", polls < 500 {
                try await Task.sleep(for: .milliseconds(10))
                polls += 1
            }
            #expect(await harness.components.health()["keys"] == "ok")
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }

    @Test("a request arriving before the keys are loaded fetches them and succeeds")
    func requestTriggersKeyFetch() async throws {
        let harness = try await StoreHarness(loadKeys: false)
        #expect(harness.auth.requestCount == 0)
        let put = try await harness.put(to: "alice")
        #expect(harness.auth.requestCount == 1)
        #expect(try await harness.get(put.notificationId, as: "alice").payload == "secret")
        #expect(harness.auth.requestCount == 1)
    }

    @Test("while auth is down and no keys were ever loaded, calls fail with -32050")
    func authDownMeansUnavailable() async throws {
        let harness = try await StoreHarness(loadKeys: false, authIsUp: false)
        let error = await rpcError { try await harness.put(to: "alice") }
        #expect(error?.code == RPCErrorCode.unavailable)
        #expect(try await harness.storedRowCount() == 0)
    }
}
