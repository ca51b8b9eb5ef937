import SharedModels
import Testing

@Suite("TextLimit: one set of input limits for every service")
struct TextLimitTests {
    @Test("lengths are UTF-8 bytes: 128 one-byte characters pass, 64 two-byte ones pass, 65 do not")
    func countsBytes() {
        #expect(TextLimit.recipientID.violation(in: String(repeating: "a", count: 128)) == nil)
        #expect(TextLimit.recipientID.violation(in: String(repeating: "é", count: 64)) == nil)
        #expect(
            TextLimit.recipientID.violation(in: String(repeating: "é", count: 65))
                == "must be 1–128 bytes of UTF-8 (got 130)")
        #expect(TextLimit.deviceName.violation(in: "") == "must be 1–128 bytes of UTF-8 (got 0)")
    }

    @Test(
        "names refuse C0/C1 controls, DEL, line separators and bidi embeddings, overrides and isolates",
        arguments: [
            "\u{0}", "\u{1F}", "\u{7F}", "\u{85}", "\u{9F}", "\u{2028}", "\u{2029}", "\u{202A}", "\u{202E}", "\u{2066}",
            "\u{2069}",
        ])
    func refusesInvisibleControls(character: String) {
        #expect(
            TextLimit.deviceName.violation(in: "name\(character)x")
                == "must not contain control or bidirectional-override characters")
        // A field that allows them still counts its bytes.
        #expect(TextLimit.idempotencyKey.violation(in: "key\(character)") == nil)
    }

    @Test("other scripts, right-to-left text, joiners and emoji are names like any other")
    func acceptsOrdinaryText() {
        for name in ["هاتف أحمد", "太郎のiPhone", "👩‍👩‍👧 tablet", "Zoë's \u{200D}phone", "שלום"] {
            #expect(TextLimit.deviceName.violation(in: name) == nil)
        }
    }
}
