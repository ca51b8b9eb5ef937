import DispatchService
import Foundation
import MetricsTestKit
import TestSupport
import Testing

@Suite("FCM answers counted by status and reason")
struct FCMResponseMetricsTests {
    @Test("an error answer counts by HTTP status and its FCM error code (else its Google status); a success by 200")
    func answers() async throws {
        let metrics = TestMetrics()
        try await withFCM { fcm in
            let responses = ProviderResponses(platform: .fcm, factory: metrics)
            await fcm.mock.script("gone", .error(404, status: "NOT_FOUND", errorCode: "UNREGISTERED"))
            await fcm.mock.script("odd", .error(400, status: "FAILED_PRECONDITION", errorCode: nil))
            await fcm.mock.script("new", .error(400, status: "INVALID_ARGUMENT", errorCode: "A_CODE_FROM_THE_FUTURE"))
            for token in ["gone", "odd", "new", "fine"] {
                _ = await fcm.provider.deliver(fcm.job(token), responses: responses)
            }
        }
        func count(_ status: String, _ reason: String) throws -> Int64 {
            try metrics.expectCounter(
                ProviderResponses.label, [("platform", "fcm"), ("status", status), ("reason", reason)]
            ).totalValue
        }
        #expect(try count("404", "UNREGISTERED") == 1)
        #expect(try count("400", "FAILED_PRECONDITION") == 1)
        #expect(try count("400", "other") == 1)
        #expect(try count("200", "none") == 1)
        #expect(metrics.counters.count == 4)
    }
}
