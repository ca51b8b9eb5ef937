import Foundation
import JSONRPC
import Testing

@Suite("The request parser (JSONValueParser) and JSONValue serialization")
struct JSONValueParserTests {
    private func parse(_ text: String) throws -> JSONValue {
        try JSONValueParser.parse(Array(text.utf8))
    }

    @Test("parses every JSON type, keeping integers apart from doubles")
    func allTypes() throws {
        let value = try parse(
            #" { "a" : [1, -2, 3.5, 1e2, -0.25, true, false, null], "b": {"c": "d"}, "e": "", "f": 9223372036854775807 } "#
        )
        #expect(
            value
                == .object([
                    "a": .array([
                        .int(1), .int(-2), .double(3.5), .int(100), .double(-0.25), .bool(true), .bool(false), .null,
                    ]),
                    "b": .object(["c": .string("d")]),
                    "e": .string(""),
                    "f": .int(Int64.max),
                ]))
    }

    @Test("decodes escapes, including surrogate pairs, and multi-byte UTF-8")
    func strings() throws {
        #expect(try parse(#""a\"b\\c\/d\b\f\n\r\t""#) == .string("a\"b\\c/d\u{08}\u{0C}\n\r\t"))
        #expect(try parse(#""\u00e9\u4e2d\ud83d\ude00""#) == .string("é中😀"))
        #expect(try parse("\"héllo 😀\"") == .string("héllo 😀"))
    }

    @Test(
        "refuses what RFC 8259 refuses",
        arguments: [
            "", " ", "{", "[1,]", "{\"a\":1,}", "{'a':1}", "{\"a\" 1}", "[1 2]", "01", "1.", ".5", "-", "1e", "+1",
            "tru", "nul", "\"unterminated", "\"a\u{01}b\"", #""\x""#, #""\ud800""#, #""\ud800\u0041""#, #""\u12g4""#,
            "NaN", "Infinity", "1e999", "{} {}", "[] x",
        ])
    func refusals(_ text: String) {
        #expect(throws: JSONValueParser.SyntaxError.self) { try parse(text) }
    }

    @Test(
        "refuses invalid UTF-8 in strings, after ASCII, alone, before an escape, and as a key",
        arguments: [
            [0xC3, 0x28], Array("ascii first ".utf8) + [0xFF], [0x80], [0xED, 0xA0, 0x80],
            [0xC0, 0xAF] + Array(#"\n"#.utf8),
        ] as [[UInt8]])
    func invalidUTF8(_ content: [UInt8]) {
        let quoted = [UInt8(ascii: "\"")] + content + [UInt8(ascii: "\"")]
        #expect(throws: JSONValueParser.SyntaxError.self) { try JSONValueParser.parse(quoted) }
        let asKey = Array("{".utf8) + quoted + Array(":1}".utf8)
        #expect(throws: JSONValueParser.SyntaxError.self) { try JSONValueParser.parse(asKey) }
    }

    @Test("ASCII strings and keys come out as the same strings, whatever their length")
    func asciiStrings() throws {
        for length in [0, 1, 15, 16, 17, 255, 4_096] {
            let text = String((0..<length).map { Character(Unicode.Scalar(UInt8(0x20 + $0 % 95))) })
                .replacingOccurrences(of: "\"", with: "'").replacingOccurrences(of: "\\", with: "/")
            #expect(try parse("{\"\(text)\":\"\(text)\"}") == .object([text: .string(text)]))
        }
    }

    @Test("refuses nesting deeper than the limit instead of exhausting the stack")
    func depthLimit() throws {
        let ok =
            String(repeating: "[", count: JSONValueParser.maxDepth)
            + String(repeating: "]", count: JSONValueParser.maxDepth)
        _ = try parse(ok)
        let tooDeep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: JSONValueParser.SyntaxError.self) { try parse(tooDeep) }
    }

    @Test("a duplicate member keeps its first value, as Foundation does")
    func duplicateKeys() throws {
        #expect(try parse(#"{"a":1,"a":2}"#) == .object(["a": .int(1)]))
    }

    @Test("serialized values parse back to the same value, through Foundation too")
    func roundTrip() throws {
        let value: JSONValue = .object([
            "text": .string("quote \" backslash \\ newline \n tab \t nul \u{0} é 😀"),
            "numbers": .array([.int(0), .int(Int64.min), .double(0.1), .double(-1.5e-7)]),
            "nested": .object(["empty": .array([]), "none": .null, "yes": .bool(true)]),
        ])
        let bytes = value.jsonBytes
        #expect(try JSONValueParser.parse(bytes) == value)
        #expect(try JSONDecoder().decode(JSONValue.self, from: Data(bytes)) == value)
    }
}
