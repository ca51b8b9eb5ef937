import Foundation
import SecurePushClient
import SharedModels
import TestSupport
import Testing

@Suite("The CLI's send controls")
struct SendControlsCLITests {
    func securepush(_ arguments: [String], _ stack: TestStack) async throws -> (Int32, String, String) {
        try await SealedCLITests.securepushWithErrors(
            arguments + ["--client-id", stack.backendClientID, "--client-secret", stack.backendClientSecret],
            stack: stack, credentials: stack.dataDirectory + "/cli/credentials.json")
    }

    @Test(
        "send --to twice is one call to many; --send-at schedules, status shows it, cancel withdraws it; a bad --priority names the flag"
    )
    func sendControls() async throws {
        try await TestStack.with(.cleartext) { stack in
            let (ada, adaID) = try await stack.signedInDevice(username: "cli-ada")
            let (bob, bobID) = try await stack.signedInDevice(username: "cli-bob")
            await ada.shutdown()
            await bob.shutdown()

            let (manyStatus, many, _) = try await securepush(
                ["send", "--to", "cli-ada", "--to", bobID, "--message", "maintenance tonight"], stack)
            #expect(manyStatus == 0)
            let lines = many.split(separator: "\n").map(String.init)
            #expect(lines.count == 2)
            #expect(lines.first?.hasSuffix("for \(adaID)") == true)
            #expect(lines.last?.hasSuffix("for \(bobID)") == true)

            let sendAt = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 600).rounded(.up))
            let (scheduledStatus, scheduled, _) = try await securepush(
                ["send", "--to", "cli-ada", "--message", "statement", "--send-at", sendAt.formatted(.iso8601)], stack)
            #expect(scheduledStatus == 0)
            #expect(scheduled.contains("scheduled for \(sendAt.formatted(.iso8601))"))
            let id = try #require(
                scheduled.split(separator: "\n").first.map { String($0.dropFirst("notification ".count)) })
            let (_, waiting, _) = try await securepush(["status", id], stack)
            #expect(waiting.contains("scheduled (due \(sendAt.formatted(.iso8601)))"))
            let (cancelStatus, cancelled, _) = try await securepush(["cancel", id], stack)
            #expect(cancelStatus == 0)
            #expect(cancelled.contains("cancelled \(id)"))
            #expect(try await securepush(["cancel", id], stack).0 == 0, "a repeated cancel is fine")
            let (_, after, _) = try await securepush(["status", id], stack)
            #expect(after.contains("cancelled"))

            let (badStatus, _, badError) = try await securepush(
                ["send", "--to", "cli-ada", "--message", "x", "--priority", "urgent"], stack)
            #expect(badStatus != 0)
            #expect(badError.contains("--priority"))
        }
    }
}
