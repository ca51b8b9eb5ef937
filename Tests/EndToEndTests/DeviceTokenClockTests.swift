import Foundation
import SecurePushClient
import TestSupport
import Testing

@Suite("The device SDK's access token")
struct DeviceTokenClockTests {
    @Test("the SDK refreshes its access token shortly before it expires by the injected clock")
    func refreshFollowsClock() async throws {
        try await TestStack.with(.cleartext) { stack in
            let clock = TestClock()
            let device = try SecurePushDevice(endpoints: stack.endpoints, logger: stack.logger, now: { clock.now })
            _ = try await device.createAccount(username: "clock-user", password: "clock password 1234")
            let signedIn = try await device.signIn(username: "clock-user", password: "clock password 1234")
            let ttl = signedIn.accessTokenExpiresAt.timeIntervalSince(clock.now)

            _ = try await device.devices()
            #expect(await device.session?.refreshToken == signedIn.refreshToken)
            clock.advance(by: ttl - 29)
            _ = try await device.devices()
            let refreshed = try #require(await device.session)
            #expect(refreshed.refreshToken != signedIn.refreshToken)
            #expect(refreshed.accessTokenExpiresAt.timeIntervalSince(clock.now) == ttl)
            await device.shutdown()
        }
    }
}
