import AuthService
import Foundation
import MetricsTestKit
import NIOPosix
import SharedModels
import TestSupport
import Testing

@Suite("A bound on concurrent password hashing")
struct PasswordHashingBoundTests {
    @Test("beyond the running and queued slots a check is refused at once, and the queue drains in order")
    func overflowRefused() async throws {
        let gate = PasswordHashingGate(maxConcurrent: 1, maxQueued: 1, maxPerAddress: 10, logger: AuthHarness.logger)
        let (release, releaser) = AsyncStream.makeStream(of: Void.self)
        let running = Task {
            try await gate.run(for: "a") {
                for await _ in release { break }
                return 1
            }
        }
        // The held check first (unstructured tasks start in any order; a quick one first would finish and leave the
        // slot to the held one, and nothing would be queued).
        #expect(await eventually { await gate.admitted >= 1 })
        let queued = Task { try await gate.run(for: "b") { 2 } }
        // Bounded (10 s) wait until both hold their slots: the tasks may start late on a busy machine.
        #expect(await eventually { await gate.admitted >= 2 })
        #expect(await gate.admitted == 2)
        let error = try #require(await #expect(throws: AuthError.self) { try await gate.run(for: "c") { 3 } })
        #expect(error.rpcError.code == RPCErrorCode.rateLimited)
        #expect(retryAfter(error.rpcError) == 1)
        releaser.yield()
        #expect(try await running.value == 1)
        #expect(try await queued.value == 2)
        #expect(try await gate.run(for: "c") { 3 } == 3)
    }

    @Test("the running and queued hashes are gauges that rise while checks wait and fall back when they finish")
    func gauges() async throws {
        let metrics = TestMetrics()
        let gate = PasswordHashingGate(
            maxConcurrent: 1, maxQueued: 2, maxPerAddress: 10, logger: AuthHarness.logger,
            metrics: AuthMetrics(factory: metrics))
        let (release, releaser) = AsyncStream.makeStream(of: Void.self)
        let running = Task { try await gate.run(for: "a") { for await _ in release { break } } }
        // The held check first (see above).
        #expect(await eventually { await gate.admitted >= 1 })
        let queued = (0..<2).map { index in Task { try await gate.run(for: "q\(index)") {} } }
        // Bounded (10 s): the tasks may start late on a busy machine.
        #expect(await eventually { await gate.admitted >= 3 })
        #expect(try metrics.expectMeter("securepush_auth_password_hashes_running").lastValue == 1)
        #expect(try metrics.expectMeter("securepush_auth_password_hashes_queued").lastValue == 2)
        releaser.yield()
        try await running.value
        for task in queued { try await task.value }
        #expect(try metrics.expectMeter("securepush_auth_password_hashes_running").lastValue == 0)
        #expect(try metrics.expectMeter("securepush_auth_password_hashes_queued").lastValue == 0)
    }

    @Test("one address cannot hold more than its share of the slots")
    func perAddressShare() async throws {
        let gate = PasswordHashingGate(maxConcurrent: 4, maxQueued: 4, maxPerAddress: 1, logger: AuthHarness.logger)
        let (release, releaser) = AsyncStream.makeStream(of: Void.self)
        let held = Task { try await gate.run(for: outsider) { for await _ in release { break } } }
        // Bounded (10 s): the tasks may start late on a busy machine.
        #expect(await eventually { await gate.admitted >= 1 })
        await #expect(throws: AuthError.self) { try await gate.run(for: outsider) {} }
        try await gate.run(for: rightfulUser) {}
        releaser.yield()
        try await held.value
    }

    @Test(
        "during a flood of 100-call auth.login batches a sign-in from another address waits behind no flood of guesses")
    func batchFlood() async throws {
        // Only the hashing bound stands between the flood and bcrypt here; a private pool of two threads (the size of
        // this machine) keeps other tests' bcrypt out of the count.
        let pool = NIOThreadPool(numberOfThreads: 2)
        pool.start()
        defer { pool.shutdownGracefully { _ in } }
        var configuration = AuthHarness.configuration(maxFailedLogins: 0, authRateLimit: 0)
        configuration.passwordConcurrency = 2
        // A share of 1 per address leaves the flood one of the two threads, so the sign-in waits behind no guess.
        // What the sign-in waited for is counted, not timed: in this process the wall clock also measures every other
        // test of the suite on the same cooperative threads. The 2 s bound is timed against a real auth process in
        // PasswordFloodEndToEndTests.
        configuration.passwordChecksPerAddress = 1
        let auth = try await AuthHarness.make(configuration, passwordThreadPool: pool)
        try await auth.register("alice")
        let batch =
            "["
            + (0..<100).map {
                #"{"jsonrpc":"2.0","id":\#($0),"method":"auth.login","params":{"username":"alice","password":"guess-\#($0)"}}"#
            }.joined(separator: ",") + "]"
        let flood = Task {
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<30 { group.addTask { _ = await auth.post(batch, from: outsider) } }
            }
        }
        // Bounded wait until the flood holds the hashing slots it can get.
        for _ in 0..<400 where await auth.components.service.hashing.refused == 0 {
            try await Task.sleep(for: .milliseconds(5))
        }
        let hashing = auth.components.service.hashing
        let finishedBefore = await hashing.finished
        let grant = try await auth.login("alice", from: rightfulUser)
        let finishedMeanwhile = await hashing.finished - finishedBefore
        #expect(!grant.accessToken.isEmpty)
        // Counted: while the sign-in waited and ran, at most the outsider's share and what the other thread finished
        // meanwhile completed (4); not the 30 batches' worth of guesses.
        #expect(finishedMeanwhile <= configuration.passwordChecksPerAddress + configuration.passwordConcurrency + 1)
        #expect(await auth.components.service.hashing.refused > 0)
        flood.cancel()
        await flood.value
    }

    @Test("each call of a batch counts against the limits")
    func batchCallsCount() async throws {
        let auth = try await AuthHarness.make(AuthHarness.configuration(authRateLimit: 5))
        let batch =
            "["
            + (0..<8).map {
                #"{"jsonrpc":"2.0","id":\#($0),"method":"auth.refresh","params":{"refreshToken":"x\#($0)"}}"#
            }
            .joined(separator: ",") + "]"
        let body = try #require(await auth.post(batch, from: outsider))
        let codes = try JSONDecoder().decode([RPCResponseEnvelope<JSONValue>].self, from: body).map { $0.error?.code }
        #expect(codes.filter { $0 == RPCErrorCode.unauthenticated }.count == 5)
        #expect(codes.filter { $0 == RPCErrorCode.rateLimited }.count == 3)
    }
}
