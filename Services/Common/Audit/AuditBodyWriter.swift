import Crypto
import Foundation
import JSONRPC

/// Writes an entry's body as compact JSON straight into bytes — `{"v":1,"service":…,"chain":…,"seq":…,"at":…,
/// "type":…,"prev":…,"fields":{…}}`, fields in name order — without building a tree of values first: the writer runs
/// once per entry, tens of thousands of times a second under a fetch load.
struct AuditBodyWriter {
    private(set) var bytes: [UInt8] = []

    init() {
        bytes.reserveCapacity(512)
    }

    /// The body of entry `sequence` of `chain`, after the entry whose hash is `previous`.
    mutating func body(
        service: String, chain: String, sequence: Int64, at recordedAt: Int64, type: String, previous: String,
        fields: AuditFields, pseudonyms: inout AuditPseudonymizer
    ) -> [UInt8] {
        bytes.removeAll(keepingCapacity: true)
        append(#"{"v":1,"service":"#)
        string(service)
        append(#","chain":"#)
        string(chain)
        append(#","seq":"#)
        integer(sequence)
        append(#","at":"#)
        integer(recordedAt)
        append(#","type":"#)
        string(type)
        append(#","prev":"#)
        string(previous)
        append(#","fields":{"#)
        var first = true
        for (name, fieldValue) in fields.sorted {
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            string(name)
            bytes.append(UInt8(ascii: ":"))
            value(fieldValue, &pseudonyms)
        }
        append("}}")
        return bytes
    }

    private mutating func value(_ value: AuditValue, _ pseudonyms: inout AuditPseudonymizer) {
        switch value {
        case .user(let id): string(pseudonyms.pseudonym(id, owner: id))
        case .username(let name, let owner): string(pseudonyms.pseudonym(name, owner: owner))
        case .device(let id, let owner): string(pseudonyms.pseudonym(id, owner: owner))
        case .address(let address):
            if let address { string(pseudonyms.pseudonym(address, owner: nil)) } else { append("null") }
        case .text(let text): string(text)
        case .texts(let texts):
            bytes.append(UInt8(ascii: "["))
            for (index, text) in texts.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                string(text)
            }
            bytes.append(UInt8(ascii: "]"))
        case .integer(let number): integer(number)
        case .flag(let flag): append(flag ? "true" : "false")
        }
    }

    /// `number` in decimal (no `String` made for it).
    private mutating func integer(_ number: Int64) {
        JSONWriter.writeInteger(number, to: &bytes)
    }

    private mutating func append(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    /// `text` as a JSON string (RFC 8259 escapes; controls other than tab, line feed and carriage return as `\u00xx`).
    private mutating func string(_ text: String) {
        JSONWriter.writeString(text, to: &bytes, namingBackspace: false)
    }
}
