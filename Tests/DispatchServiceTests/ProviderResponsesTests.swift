import Foundation
import MetricsTestKit
import SharedModels
import Testing

@testable import DispatchService

@Suite("Provider responses: bounded status and reason labels")
struct ProviderResponsesTests {
    @Test("documented statuses are their own label; any other is its class, so a service cannot mint series")
    func statusLabels() {
        let cases: [(Int, String)] = [
            (200, "200"), (201, "201"), (410, "410"), (429, "429"), (503, "503"), (418, "4xx"), (299, "2xx"),
            (599, "5xx"), (302, "3xx"), (0, "other"), (-1, "other"), (600, "other"), (Int.max, "other"),
        ]
        for (status, label) in cases { #expect(ProviderResponses.statusLabel(status) == label, "\(status)") }
    }

    @Test("a reason is its label only when that provider documents it; anything else is other")
    func reasonLabels() {
        let cases: [(String, Platform, String)] = [
            ("BadDeviceToken", .apns, "BadDeviceToken"), ("Unregistered", .apns, "Unregistered"),
            ("UNREGISTERED", .fcm, "UNREGISTERED"), ("UNREGISTERED", .apns, "other"),
            ("QUOTA_EXCEEDED", .fcm, "QUOTA_EXCEEDED"), ("channelthrottled", .wns, "channelthrottled"),
            ("baddevicetoken", .apns, "other"), ("Gone", .webpush, "other"),
            ("device 3f1c0ffee-token", .apns, "other"), (String(repeating: "x", count: 10_000), .fcm, "other"),
        ]
        for (reason, platform, label) in cases {
            #expect(ProviderResponses.reasonLabel(reason, platform: platform) == label, "\(reason) on \(platform)")
        }
    }

    @Test("one answer is one count under platform, status and reason; no answer is status error")
    func counting() throws {
        let metrics = TestMetrics()
        let responses = ProviderResponses(platform: .fcm, factory: metrics)
        responses.record(status: 404, reason: "UNREGISTERED")
        responses.record(status: 404, reason: "UNREGISTERED")
        responses.record(status: 200, reason: nil)
        responses.recordTransportFailure()
        func count(_ status: String, _ reason: String) throws -> Int64 {
            try metrics.expectCounter(
                ProviderResponses.label, [("platform", "fcm"), ("status", status), ("reason", reason)]
            ).totalValue
        }
        #expect(try count("404", "UNREGISTERED") == 2)
        #expect(try count("200", "none") == 1)
        #expect(try count("error", "none") == 1)
        ProviderResponses.ignored(.fcm).record(status: 500, reason: "INTERNAL")
        #expect(metrics.counters.count == 3)
    }
}
