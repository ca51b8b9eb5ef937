import Foundation
import ServiceCore
import SharedModels
import TestSupport
import Testing

/// The helpers the services share from ServiceCore, where the store's and dispatch's copies used to disagree.
@Suite("Shared time and token helpers")
struct SharedHelperTests {
    @Test("every stored millisecond count reads back and is written again unchanged, whichever service stored it")
    func millisecondsRoundTrip() {
        var countsFlooringWouldShift = 0
        let now: Int64 = 1_764_000_000_000
        for milliseconds in Array(0..<20_000) + Array(now..<(now + 20_000)) {
            let date = Date(millisecondsSince1970: milliseconds)
            #expect(date.millisecondsSince1970 == milliseconds)
            #expect(date.truncatedToMilliseconds == date)
            if Int64((date.timeIntervalSince1970 * 1000).rounded(.down)) != milliseconds {
                countsFlooringWouldShift += 1
            }
        }
        // The reason for rounding to nearest: dispatch's old rounding down moved some stored counts by 1 ms.
        #expect(countsFlooringWouldShift > 0)
    }

    @Test("a date between two milliseconds is stored as the nearer one")
    func roundsToNearest() {
        let base = Date(millisecondsSince1970: 1_764_000_000_000)
        #expect(base.addingTimeInterval(0.000_4).millisecondsSince1970 == 1_764_000_000_000)
        #expect(base.addingTimeInterval(0.000_6).millisecondsSince1970 == 1_764_000_000_001)
    }

    @Test("a Duration converts to seconds with its fraction, and moves a date by that much")
    func durationSeconds() {
        #expect(Duration.milliseconds(1_500).timeInterval == 1.5)
        #expect(Duration.seconds(-2).timeInterval == -2)
        let date = Date(timeIntervalSince1970: 100)
        #expect(date.adding(.milliseconds(250)) == Date(timeIntervalSince1970: 100.25))
    }

    @Test("base64url round-trips any bytes without padding, and decodes padded or standard base64 too")
    func base64URL() throws {
        for length in 0..<40 {
            let bytes = Data((0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 250) })
            let encoded = bytes.base64URLEncodedString()
            #expect(!encoded.contains("=") && !encoded.contains("+") && !encoded.contains("/"))
            #expect(Data(base64URLEncoded: encoded) == bytes)
            #expect(Data(base64URLEncoded: bytes.base64EncodedString()) == bytes)
        }
        #expect(Data([0xfb, 0xff]).base64URLEncodedString() == "-_8")
        #expect(Data(base64URLEncoded: "a") == nil)
        #expect(Data(base64URLEncoded: "not base64!") == nil)
    }
}
