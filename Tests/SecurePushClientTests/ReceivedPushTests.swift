import Logging
import SecurePushClient
import Testing

@Suite("SecurePushDevice.receive(push:): what a platform push holds")
struct ReceivedPushTests {
    /// A client whose services are never called (nothing listens on port 9): these cases need no server.
    private func device() throws -> SecurePushDevice {
        let nowhere = "http://127.0.0.1:9"
        return try SecurePushDevice(
            endpoints: SecurePushEndpoints(auth: nowhere, store: nowhere, dispatch: nowhere),
            logger: Logger(label: "received-push") { _ in SwiftLogNoOpLogHandler() })
    }

    @Test("an id is a notification to fetch (with its trace context); anything else is not ours")
    func notificationOrOther() async throws {
        let device = try device()
        #expect(
            try await device.receive(push: ["secureId": "n-1", "traceparent": "00-abc"])
                == .notification(id: "n-1", traceparent: "00-abc"))
        #expect(try await device.receive(push: ["title": "from another library"]) == .other)
        await device.shutdown()
    }

    @Test("a challenge without a pending registration is refused locally, before any call")
    func challengeWithoutPendingDevice() async throws {
        let device = try device()
        await #expect(throws: SecurePushClientError.noPendingDevice) {
            _ = try await device.receive(push: ["securepushChallenge": "q3Vb0zYQm2xJ8kT4fP1wLg"])
        }
        await device.shutdown()
    }
}
