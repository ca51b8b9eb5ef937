import APNsMock
import DispatchService
import Foundation
import Testing

@Suite("A device's own APNs mode overrides the configured one")
struct APNsDeviceModeTests {
    @Test("a job with apnsMode background sends the background payload, push type and priority under alert config")
    func backgroundOverAlert() async throws {
        try await withAPNsMock { mock in
            let token = deviceToken(40)
            let id = "7c1e9a20-3b4d-4f5e-8a6b-9c0d1e2f3a4b"
            var job = makeJob(notificationID: id, token: token)
            job.apnsMode = "background"
            let outcome = try await withProvider(mock.configuration(mode: .alert)) { provider in
                await provider.deliver(job)
            }
            #expect(outcome == .sent)
            let request = try #require(mock.state.requests.first)
            #expect(request.bodyText == #"{"aps":{"content-available":1},"secureId":"\#(id)"}"#)
            #expect(request.headers["apns-push-type"] == "background")
            #expect(request.headers["apns-priority"] == "5")
        }
    }

    @Test("apnsMode alert wins over background config; no or an unknown apnsMode uses the configured mode")
    func alertOverBackgroundAndFallback() async throws {
        try await withAPNsMock { mock in
            let token = deviceToken(41)
            let modes: [String?] = ["alert", nil, "loud"]
            try await withProvider(mock.configuration(mode: .background)) { provider in
                for mode in modes {
                    var job = makeJob(token: token)
                    job.apnsMode = mode
                    #expect(await provider.deliver(job) == .sent)
                }
            }
            let requests = mock.state.requests
            #expect(requests.map { $0.headers["apns-push-type"] } == ["alert", "background", "background"])
            #expect(requests.map { $0.headers["apns-priority"] } == ["10", "5", "5"])
            #expect(requests.map { $0.bodyText.contains("mutable-content") } == [true, false, false])
        }
    }
}
