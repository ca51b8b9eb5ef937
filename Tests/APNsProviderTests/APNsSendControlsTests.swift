import APNsMock
import DispatchService
import Foundation
import SharedModels
import Testing

@Suite("A send's priority, collapse id and expiry reach APNs")
struct APNsSendControlsTests {
    @Test(
        "normal is apns-priority 5 and high (or none) 10 for alerts; a background device is never raised above 5; the collapse id is apns-collapse-id"
    )
    func priorityAndCollapse() async throws {
        try await withAPNsMock { mock in
            let token = deviceToken(52)
            let cases: [(mode: String?, priority: Push.Priority?, collapse: String?)] = [
                (nil, .normal, "balance"), (nil, .high, nil), (nil, nil, nil), ("background", .high, "news"),
                ("background", .normal, nil),
            ]
            let expiresAt = Date(timeIntervalSince1970: 1_900_000_123.9)
            try await withProvider(mock.configuration(mode: .alert)) { provider in
                for entry in cases {
                    var job = makeJob(token: token)
                    job.apnsMode = entry.mode
                    job.priority = entry.priority
                    job.collapseID = entry.collapse
                    job.expiresAt = expiresAt
                    #expect(await provider.deliver(job) == .sent)
                }
            }
            let requests = mock.state.requests
            #expect(requests.map { $0.headers["apns-priority"] } == ["5", "10", "10", "5", "5"])
            #expect(requests.map { $0.headers["apns-collapse-id"] } == ["balance", nil, nil, "news", nil])
            #expect(requests.allSatisfy { $0.headers["apns-expiration"] == "1900000123" })
            #expect(requests.allSatisfy { $0.answer.status == 200 })
        }
    }
}
