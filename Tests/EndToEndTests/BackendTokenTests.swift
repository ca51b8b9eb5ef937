import Foundation
import SecurePushClient
import SharedModels
import Testing

@Suite("An app backend's client token")
struct BackendTokenTests {
    @Test("concurrent sends of a new backend share one client-token fetch, so auth's per-address bcrypt share holds")
    func concurrentSendsShareOneTokenFetch() async throws {
        // One password check per address at a time: a second concurrent auth.clientToken would get -32029.
        let extra = ["SECUREPUSH_BCRYPT_PER_ADDRESS": "1", "SECUREPUSH_BCRYPT_QUEUE": "0"]
        try await TestStack.with(.cleartext, extra: extra) { stack in
            let (device, userId) = try await stack.signedInDevice()
            await device.shutdown()
            let backend = try stack.backend()
            let results = try await withThrowingTaskGroup(of: Push.Send.Result.self) { group in
                for index in 0..<16 {
                    group.addTask { try await backend.send(.init(recipientId: userId, payload: "burst \(index)")) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(Set(results.map(\.notificationId)).count == 16)
            await backend.shutdown()
        }
    }

    @Test("a backend with a wrong secret gets auth's -32001, not a dependency error")
    func wrongSecretIsUnauthenticated() async throws {
        try await TestStack.with(.cleartext) { stack in
            let backend = try SecurePushBackend(
                authURL: stack.endpoints.auth, dispatchURL: stack.endpoints.dispatch, clientID: stack.backendClientID,
                clientSecret: "not-the-secret", logger: stack.logger)
            let error = try #require(
                await #expect(throws: RPCError.self) {
                    try await backend.send(.init(recipientId: "anyone", payload: "x"))
                })
            #expect(error.code == RPCErrorCode.unauthenticated)
            await backend.shutdown()
        }
    }
}
