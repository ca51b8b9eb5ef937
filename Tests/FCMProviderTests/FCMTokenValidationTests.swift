import DispatchService
import Foundation
import ServiceCore
import SharedModels
import Testing

@Suite("FCM registration tokens")
struct FCMTokenValidationTests {
    /// A provider that never sends: validation needs no server.
    func withProvider(_ body: (FCMProvider) throws -> Void) async throws {
        let account = TestServiceAccount(tokenURI: "https://oauth2.googleapis.com/token")
        let configuration = try FCMConfiguration(
            serviceAccount: try FCMServiceAccount.load(path: account.write(), variable: "test"))
        let provider = try FCMProvider(configuration: configuration, logger: .quiet)
        let result = Result { try body(provider) }
        await provider.shutdown()
        try result.get()
    }

    @Test("a registration token is stored as given")
    func valid() async throws {
        try await withProvider { provider in
            let token = "dGVzdC10b2tlbg:APA91bH-x_1" + String(repeating: "a", count: 140)
            let stored = try provider.validateToken(token)
            #expect(stored == token)
            #expect(provider.platform == .fcm)
        }
    }

    @Test(
        "missing, empty, oversized or spaced tokens are refused naming token",
        arguments: [nil, "", "two words", "tab\there", "line\nbreak", "caf\u{E9}", String(repeating: "x", count: 4097)]
            as [String?]
    )
    func invalid(token: String?) async throws {
        try await withProvider { provider in
            let error = #expect(throws: DispatchError.self) { try provider.validateToken(token) }
            #expect(error?.rpcError.message.contains("token") == true)
        }
    }
}
