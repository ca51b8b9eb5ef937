import Foundation
import SharedModels
import TestSupport
import Testing

@Suite("direct event streams end when the session or the device goes away (real services, real sockets)")
struct StreamLifecycleTests {
    /// Signs a fresh user in over RPC and registers a direct device; returns the grant and the device id.
    static func signedInDevice(_ stack: TestStack) async throws -> (Auth.TokenGrant, String) {
        let auth = try stack.rpcClient(stack.endpoints.auth, name: "auth")
        let dispatch = try stack.rpcClient(stack.endpoints.dispatch, name: "push-dispatch")
        return try await withFinally {
            let username = "user-\(UUID().uuidString.prefix(8).lowercased())"
            _ = try await auth.rpc.call(Auth.Register.self, .init(username: username, password: "password-0123456789"))
            let grant = try await auth.rpc.call(
                Auth.Login.self, .init(username: username, password: "password-0123456789"))
            let device = try await dispatch.rpc.call(
                Devices.Register.self, .init(platform: .direct), token: grant.accessToken
            ).deviceId
            return (grant, device)
        } finally: {
            for peer in [auth, dispatch] { await peer.shutdown() }
        }
    }

    /// Holds the device's event stream open with curl until the server ends it (curl gives up after 20 s);
    /// returns the HTTP status and how long the stream lasted.
    static func holdStream(_ stack: TestStack, device: String, token: String) async throws -> (Int, Duration) {
        let started = ContinuousClock.now
        let result = try await Curl.run([
            "--http2-prior-knowledge", "-N", "-H", "Authorization: Bearer \(token)",
            "\(stack.endpoints.dispatch)/devices/\(device)/events",
        ])
        return (result.status, ContinuousClock.now - started)
    }

    @Test("auth.logout ends the session's open stream within a sweep interval")
    func logoutEndsStream() async throws {
        try await TestStack.with(.cleartext, extra: ["SECUREPUSH_DISPATCH_SWEEP_INTERVAL": "1"]) { stack in
            let (grant, device) = try await Self.signedInDevice(stack)

            async let held = Self.holdStream(stack, device: device, token: grant.accessToken)
            try await Task.sleep(for: .seconds(2))  // the stream is open (curl connects in milliseconds)
            let auth = try stack.rpcClient(stack.endpoints.auth, name: "auth")
            _ = try await auth.rpc.call(Auth.Logout.self, .init(refreshToken: grant.refreshToken))
            await auth.shutdown()

            let (status, lasted) = try await held
            #expect(status == 200)
            // Without the logout it would last until curl gives up (20 s); with it, the next sweep (1 s) ends it. The
            // bound is loose: a loaded 2-core CI machine took 8.6 s.
            #expect(lasted < .seconds(15), "the stream outlived the logout: \(lasted)")
            // The still-unexpired access token of the signed-out session opens no new stream.
            let again = try await Curl.run([
                "--http2-prior-knowledge", "-H", "Authorization: Bearer \(grant.accessToken)",
                "\(stack.endpoints.dispatch)/devices/\(device)/events",
            ])
            #expect(again.status == 401)
        }
    }

    @Test("devices.unregister ends the device's open stream at once")
    func unregisterEndsStream() async throws {
        try await TestStack.with(.cleartext) { stack in
            let (grant, device) = try await Self.signedInDevice(stack)

            async let held = Self.holdStream(stack, device: device, token: grant.accessToken)
            try await Task.sleep(for: .seconds(2))
            let dispatch = try stack.rpcClient(stack.endpoints.dispatch, name: "push-dispatch")
            _ = try await dispatch.rpc.call(Devices.Unregister.self, .init(deviceId: device), token: grant.accessToken)
            await dispatch.shutdown()

            let (status, lasted) = try await held
            #expect(status == 200)
            // Curl would hold it 20 s; ~2 s is expected, the bound leaves room for a loaded CI machine.
            #expect(lasted < .seconds(12), "the stream outlived unregister: \(lasted)")
        }
    }
}
