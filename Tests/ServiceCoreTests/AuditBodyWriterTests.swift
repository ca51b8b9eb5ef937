import Crypto
import Foundation
import Testing

@testable import ServiceCore

/// An entry's hash is over its body as written: the bytes for a given entry never change between versions, or a
/// trail written before would no longer verify against entries written after.
@Suite("Audit entry bodies")
struct AuditBodyWriterTests {
    @Test("a body is byte for byte the documented form, every control character escaped as in the first version")
    func bodyBytes() {
        var writer = AuditBodyWriter()
        var pseudonyms = AuditPseudonymizer(
            userKeys: [:], addressKey: SymmetricKey(size: .bits256), addressKeyTag: "day", cache: .init())
        let text = "a\u{0}\u{8}\u{9}\u{a}\u{c}\u{d}\u{1f}\"\\/é😀"
        let body = writer.body(
            service: "store", chain: "c1", sequence: 7, at: 1_764_300_000_123, type: "store.fetch", previous: "p",
            fields: ["z": .text(text), "a": .integer(-3), "m": .flag(true), "t": .texts(["x", "\u{8}"])],
            pseudonyms: &pseudonyms)
        let expected =
            #"{"v":1,"service":"store","chain":"c1","seq":7,"at":1764300000123,"type":"store.fetch","prev":"p","#
            + #""fields":{"a":-3,"m":true,"t":["x","\u0008"],"z":"a\u0000\u0008\t\n\u000c\r\u001f\"\\/é😀"}}"#
        #expect(String(decoding: body, as: UTF8.self) == expected)
    }
}
