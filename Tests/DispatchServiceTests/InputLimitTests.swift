import DispatchService
import Foundation
import SharedModels
import TestSupport
import Testing

@Suite("push-dispatch's input limits: UTF-8 bytes, no invisible controls in names, the store's bounds checked first")
struct InputLimitTests {
    @Test("a device name is counted in UTF-8 bytes: 128 bytes pass, 43 three-byte characters (129 bytes) do not")
    func nameCountsBytes() async throws {
        let harness = try await DispatchHarness()
        _ = try await harness.registerDevice(user: "alice", name: String(repeating: "€", count: 42) + "ab")
        let error = await expectRPCError {
            _ = try await harness.registerDevice(user: "alice", name: String(repeating: "€", count: 43))
        }
        #expect(error?.code == RPCErrorCode.invalidParams)
        #expect(error?.data == .object(["field": "name"]))
        #expect(error?.message.contains("bytes") == true)
    }

    @Test(
        "device names with bidi overrides, isolates or control characters are refused naming the field",
        arguments: [
            "phone\u{202E}gpj.exe", "a\u{2066}b\u{2069}", "line\nbreak", "bell\u{07}", "nul\u{0}", "c1\u{85}",
            "sep\u{2028}",
        ])
    func nameRefusesInvisibleControls(name: String) async throws {
        let harness = try await DispatchHarness()
        let error = await expectRPCError { _ = try await harness.registerDevice(user: "alice", name: name) }
        #expect(error?.code == RPCErrorCode.invalidParams)
        #expect(error?.data == .object(["field": "name"]))
    }

    @Test("names in other scripts, with emoji or right-to-left text, are accepted")
    func ordinaryNamesPass() async throws {
        let harness = try await DispatchHarness()
        for name in ["Adas Telefon ☎︎", "هاتف أحمد", "太郎のiPhone 👍🏽", "tab-free name"] {
            _ = try await harness.registerDevice(user: "alice", name: name)
        }
    }

    @Test(
        "push.send with a recipientId the store would refuse is -32602 naming recipientId, and the store is not called")
    func recipientBeyondStoreLimit() async throws {
        let harness = try await DispatchHarness()
        for recipient in [String(repeating: "u", count: 200), String(repeating: "é", count: 65), "", "alice\u{0}"] {
            let error = await expectRPCError { _ = try await harness.send(to: recipient) }
            #expect(error?.code == RPCErrorCode.invalidParams)
            #expect(error?.data == .object(["field": "recipientId"]))
        }
        #expect(harness.store.calls.isEmpty)
        // Exactly the store's bound (128 bytes) is accepted by both.
        _ = try await harness.send(to: String(repeating: "é", count: 64))
        #expect(harness.store.calls.count == 1)
    }

    @Test("an idempotency key is counted in UTF-8 bytes")
    func idempotencyKeyCountsBytes() async throws {
        let harness = try await DispatchHarness()
        let error = await expectRPCError {
            _ = try await harness.send(to: "alice", idempotencyKey: String(repeating: "€", count: 86))
        }
        #expect(error?.code == RPCErrorCode.invalidParams)
        #expect(error?.data == .object(["field": "idempotencyKey"]))
    }
}
