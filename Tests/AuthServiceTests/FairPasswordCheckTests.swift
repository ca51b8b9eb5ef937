import AuthService
import Foundation
import ServiceCore
import SharedModels
import TestSupport
import Testing

/// Issue 23: a flood of *successful* sign-ins must not starve everyone else's.
@Suite("Password checks shared fairly across addresses")
struct FairPasswordCheckTests {
    @Test("under a flood of checks from 20 addresses, a newcomer's check starts before any flood check queued")
    func newcomerFirst() async throws {
        let gate = PasswordHashingGate(maxConcurrent: 2, maxQueued: 16, maxPerAddress: 4, logger: AuthHarness.logger)
        let flood = Self.flood(gate, each: 4)
        // The queue is full of the flood before the newcomer arrives, and the flood has been served for a while (40
        // checks finished, so every flooding address had its turn): a newcomer ranks behind addresses never served
        // yet, which are newcomers too (on a loaded machine the queue filled before any flood check finished, and the
        // newcomer, one of 17 equals, was refused).
        for _ in 0..<5_000 {
            if await gate.queued == 16, await gate.finished >= 40 { break }
            try await Task.sleep(for: .milliseconds(2))
        }
        #expect(await gate.queued == 16)
        #expect(await gate.finished >= 40)
        let refusedBefore = await gate.refused
        try await gate.run(for: "203.0.113.9") {}
        flood.cancel()
        await flood.value
        // It was not refused (a flood check gave its place up instead), and waited only for the 2 checks running
        // when it arrived: no queued flood check started ahead of it.
        #expect(await gate.startedAheadOfGrant["203.0.113.9"] == 0)
        #expect(await gate.refused > refusedBefore, "a flood check was displaced")
    }

    @Test(
        "under a flood (each of 20 addresses signing in one or four at a time), a person signing in 5 times, 64 flood checks apart, is never refused and waits behind at most one check per flooding address",
        arguments: [1, 4])
    func returningPersonFirst(flooders: Int) async throws {
        let gate = PasswordHashingGate(maxConcurrent: 2, maxQueued: 16, maxPerAddress: 4, logger: AuthHarness.logger)
        let flood = Self.flood(gate, each: flooders)
        for _ in 0..<1_000 where await gate.queued < 16 { try await Task.sleep(for: .milliseconds(2)) }
        #expect(await gate.queued == 16)
        // Between two sign-ins of the person, the flood gets 64 checks (with bcrypt at cost 12 on two cores, about
        // nine seconds). The queue is full each time: each sign-in takes the place of a waiting flood check (a
        // refusal would throw here), and starts behind at most about one check of each flooding address.
        var ahead: [Int] = []
        for _ in 0..<5 {
            let finished = await gate.finished
            for _ in 0..<1_000 where await gate.finished < finished + 64 { try await Task.sleep(for: .milliseconds(2)) }
            try await gate.run(for: "203.0.113.9") {}
            ahead.append(await gate.startedAheadOfGrant["203.0.113.9"] ?? -1)
        }
        flood.cancel()
        await flood.value
        #expect(ahead.allSatisfy { (0...20).contains($0) }, "checks started ahead: \(ahead)")
    }

    /// 20 addresses, each keeping `each` checks of 2 ms going, a refused one tried again after 1 ms, until cancelled
    /// (bounded: 60 s; a count of rounds ran out on a loaded machine, where refusals used them up early).
    static func flood(_ gate: PasswordHashingGate, each: Int) -> Task<Void, Never> {
        let until = ContinuousClock.now + .seconds(60)
        return Task {
            await withTaskGroup(of: Void.self) { group in
                for address in 0..<20 {
                    for _ in 0..<each {
                        group.addTask {
                            while !Task.isCancelled, ContinuousClock.now < until {
                                do {
                                    try await gate.run(for: "198.51.100.\(address)") {
                                        try await Task.sleep(for: .milliseconds(2))
                                    }
                                } catch {
                                    try? await Task.sleep(for: .milliseconds(1))
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    @Test("successful checks count against SECUREPUSH_BCRYPT_CHECKS_PER_ADDRESS; other addresses are unaffected")
    func successesCount() async throws {
        var configuration = AuthHarness.configuration()
        configuration.passwordChecksPerMinutePerAddress = 3
        let clock = TestClock()
        let auth = try await AuthHarness.make(configuration, clock: clock)
        _ = try await auth.rpc(from: rightfulUser).call(
            Auth.Register.self, .init(username: "alice", password: "correct horse"))
        let flooder = auth.rpc(from: outsider)
        for _ in 0..<3 {
            _ = try await flooder.call(Auth.Login.self, .init(username: "alice", password: "correct horse"))
        }
        let error = try #require(
            await #expect(throws: RPCError.self) {
                try await flooder.call(Auth.Login.self, .init(username: "alice", password: "correct horse"))
            })
        #expect(error.code == RPCErrorCode.rateLimited)
        // The rightful holder, elsewhere, signs in; the flooder's budget returns after the minute.
        _ = try await auth.rpc(from: rightfulUser).call(
            Auth.Login.self, .init(username: "alice", password: "correct horse"))
        clock.advance(by: 61)
        _ = try await flooder.call(Auth.Login.self, .init(username: "alice", password: "correct horse"))
    }

    @Test("SECUREPUSH_BCRYPT_CHECKS_PER_ADDRESS is read with a default of 30")
    func setting() throws {
        #expect(try AuthConfiguration(environment: ServiceEnvironment([:])).passwordChecksPerMinutePerAddress == 30)
        let configured = try AuthConfiguration(
            environment: ServiceEnvironment(["SECUREPUSH_BCRYPT_CHECKS_PER_ADDRESS": "5"]))
        #expect(configured.passwordChecksPerMinutePerAddress == 5)
        #expect(throws: ConfigurationError.self) {
            try AuthConfiguration(environment: ServiceEnvironment(["SECUREPUSH_BCRYPT_CHECKS_PER_ADDRESS": "-1"]))
        }
    }
}
