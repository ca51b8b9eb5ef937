import Foundation
import Testing

@testable import DispatchService

@Suite("Retry-After")
struct WebPushOutcomeTests {
    static let now = Date(timeIntervalSince1970: 1_750_000_000)

    static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }

    @Test(
        "Retry-After is read as seconds or an HTTP-date, clamped to 0…24 h, and ignored when unreadable",
        arguments: [
            (nil, Duration.zero),
            ("", .zero),
            ("120", .seconds(120)),
            (" 5 ", .seconds(5)),
            ("-3", .zero),
            ("999999", .seconds(86_400)),
            (httpDate(now.addingTimeInterval(90)), .seconds(90)),
            (httpDate(now.addingTimeInterval(-90)), .zero),
            ("soon", .zero),
        ] as [(String?, Duration)])
    func retryAfter(value: String?, expected: Duration) {
        #expect(WebPushProvider.retryDelay(value, now: Self.now) == expected)
    }

    @Test("an HTTP-date Retry-After on a 503 becomes the retry delay")
    func dateOnServerError() {
        let outcome = WebPushProvider.outcome(
            status: 503, retryAfter: Self.httpDate(Self.now.addingTimeInterval(600)), excerpt: "", now: Self.now)
        #expect(outcome == .retry(after: .seconds(600), reason: "503 Service Unavailable"))
    }
}
