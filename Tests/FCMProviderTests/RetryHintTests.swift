import Foundation
import Testing

@testable import DispatchService

@Suite("Retry-After parsing")
struct RetryHintTests {
    let now = Date(timeIntervalSince1970: 1_700_000_000)

    @Test("whole seconds are a delay")
    func seconds() {
        #expect(RetryHint.delay("120", now: now) == .seconds(120))
        #expect(RetryHint.delay(" 0 ", now: now) == .zero)
    }

    @Test("an HTTP date is the time until it, never negative; obsolete date forms are read too")
    func dates() {
        #expect(RetryHint.delay("Tue, 14 Nov 2023 22:18:20 GMT", now: now) == .seconds(300))
        #expect(RetryHint.delay("Tuesday, 14-Nov-23 22:18:20 GMT", now: now) == .seconds(300))
        #expect(RetryHint.delay("Tue Nov 14 22:18:20 2023", now: now) == .seconds(300))
        #expect(RetryHint.delay("Tue, 14 Nov 2023 20:00:00 GMT", now: now) == .zero)
    }

    @Test("anything else leaves the delay to the worker")
    func garbage() {
        for value in [nil, "", "soon", "-5", "1.5", "12 seconds"] as [String?] {
            #expect(RetryHint.delay(value, now: now) == nil, "\(value ?? "nil")")
        }
    }

    @Test("form bodies escape everything but unreserved characters")
    func formEncoding() {
        #expect(
            FormURLEncoded.encode([("grant_type", "client_credentials"), ("client_secret", "a+b/c=d&e f~")])
                == "grant_type=client_credentials&client_secret=a%2Bb%2Fc%3Dd%26e%20f~")
    }
}
