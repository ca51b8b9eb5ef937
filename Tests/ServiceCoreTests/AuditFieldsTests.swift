import Crypto
import Foundation
import Testing

@testable import ServiceCore

/// An event's fields are what its entry's body lists, in name order, each name once.
@Suite("Audit event fields")
struct AuditFieldsTests {
    @Test("a literal keeps its fields in name order whatever order they were written in")
    func literalOrder() {
        let fields: AuditFields = ["z": .flag(true), "address": .address(nil), "by": .text("token"), "a": .integer(1)]
        #expect(fields.sorted.map(\.name) == ["a", "address", "by", "z"])
        #expect(fields["by"] == .text("token"))
        #expect(fields["missing"] == nil)
        #expect(fields.count == 4)
    }

    @Test("a name given twice keeps its last value, as a dictionary's subscript does")
    func repeatedName() {
        let fields: AuditFields = ["reason": .text("first"), "user": .user("u1"), "reason": .text("second")]
        #expect(fields.sorted.map(\.name) == ["reason", "user"])
        #expect(fields["reason"] == .text("second"))
    }

    @Test("assigning through the subscript adds, replaces and (with nil) removes, keeping the order")
    func subscriptAssignment() {
        var fields: AuditFields = ["m": .integer(1)]
        fields["b"] = .integer(2)
        fields["x"] = .integer(3)
        fields["m"] = .integer(4)
        fields["b"] = nil
        fields["absent"] = nil
        #expect(fields.sorted.map(\.name) == ["m", "x"])
        #expect(fields == ["x": .integer(3), "m": .integer(4)])
        #expect(fields != ["x": .integer(3), "m": .integer(1)])
    }

    @Test("merging keeps the other side's value where both name a field")
    func merging() {
        let base: AuditFields = ["client": .text("spoofed"), "host": .text("example.com")]
        let merged = base.merging(["client": .text("c1"), "webhook": .text("w1")])
        #expect(merged == ["client": .text("c1"), "host": .text("example.com"), "webhook": .text("w1")])
    }

    @Test("an entry's body lists the fields as a dictionary of the same fields did (names sorted, last value kept)")
    func bodyMatchesDictionaryOrder() {
        let pairs: [(String, AuditValue)] = [
            ("notification", .text("n1")), ("by", .text("token")), ("address", .address("127.0.0.1")),
            ("user", .user("u1")), ("device", .device("d1", owner: "u1")), ("Zeta", .integer(-9)),
            ("é", .flag(false)), ("by", .text("proof")),
        ]
        var fields = AuditFields()
        var dictionary: [String: AuditValue] = [:]
        for (name, value) in pairs {
            fields[name] = value
            dictionary[name] = value
        }
        #expect(fields.sorted.map(\.name) == dictionary.keys.sorted())
        #expect(fields.sorted.map(\.value) == dictionary.keys.sorted().map { dictionary[$0]! })
    }
}

extension AuditFieldsTests {
    @Test("a body with people and an address: names in order, each pseudonym the HMAC under its key, as before")
    func bodyWithPseudonyms() {
        let userKey = SymmetricKey(data: Data(repeating: 7, count: 32))
        let dayKey = SymmetricKey(data: Data(repeating: 9, count: 32))
        func mac(_ text: String, _ key: SymmetricKey, _ prefix: String) -> String {
            let code = Data(HMAC<SHA256>.authenticationCode(for: Data(text.utf8), using: key))
            return prefix
                + code.base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
        var writer = AuditBodyWriter()
        var pseudonyms = AuditPseudonymizer(
            userKeys: ["u1": userKey], addressKey: dayKey, addressKeyTag: "2026-12-06", cache: .init())
        let fields: AuditFields = [
            "notification": .text("n1"), "user": .user("u1"), "by": .text("token"), "address": .address("127.0.0.1"),
            "device": .device("d1", owner: "u1"), "stranger": .username("eve", owner: nil), "é": .integer(0),
            "gone": .address(nil),
        ]
        let body = writer.body(
            service: "store", chain: "c1", sequence: 2, at: 5, type: "store.fetch", previous: "h", fields: fields,
            pseudonyms: &pseudonyms)
        let expected =
            #"{"v":1,"service":"store","chain":"c1","seq":2,"at":5,"type":"store.fetch","prev":"h","fields":{"#
            + #""address":"\#(mac("127.0.0.1", dayKey, "d:"))","by":"token","device":"\#(mac("d1", userKey, "u:"))","#
            + #""gone":null,"notification":"n1","stranger":"\#(mac("eve", dayKey, "d:"))","#
            + #""user":"\#(mac("u1", userKey, "u:"))","é":0}}"#
        #expect(String(decoding: body, as: UTF8.self) == expected)
    }
}

extension AuditFieldsTests {
    @Test("an erasure's fields: the user, and each table's count, a table named user not overriding the person")
    func erasure() {
        let fields = AuditFields.erasure(of: "u1", removed: ["notification": 3, "receipt": 0, "user": 9])
        #expect(fields == ["notification": .integer(3), "receipt": .integer(0), "user": .user("u1")])
    }
}
