import Crypto
import Foundation
import JSONRPC
import SharedModels

/// Turns an event's fields into what the trail stores: people's identifiers as HMACs under their owner's key
/// (`u:…`) or the day's address key (`d:…`), everything else as it is.
struct AuditPseudonymizer {
    let userKeys: [String: SymmetricKey]
    let addressKey: SymmetricKey

    func fields(of event: AuditEvent) -> [String: JSONValue] {
        var fields: [String: JSONValue] = [:]
        fields.reserveCapacity(event.fields.count)
        for (name, value) in event.fields { fields[name] = self.value(value) }
        return fields
    }

    private func value(_ value: AuditValue) -> JSONValue {
        switch value {
        case .user(let id): .string(pseudonym(id, owner: id))
        case .username(let name, let owner): .string(pseudonym(name, owner: owner))
        case .device(let id, let owner): .string(pseudonym(id, owner: owner))
        case .address(let address): address.map { .string(Self.mac($0, key: addressKey, prefix: "d:")) } ?? .null
        case .text(let text): .string(text)
        case .texts(let texts): .array(texts.map { .string($0) })
        case .integer(let number): .int(number)
        case .flag(let flag): .bool(flag)
        }
    }

    /// `u:` + base64url(HMAC-SHA256(k_owner, id)) when the owner has a key, else `d:` + the HMAC under the day's key.
    func pseudonym(_ id: String, owner: String?) -> String {
        if let owner, let key = userKeys[owner] { return Self.mac(id, key: key, prefix: "u:") }
        return Self.mac(id, key: addressKey, prefix: "d:")
    }

    static func mac(_ text: String, key: SymmetricKey, prefix: String) -> String {
        prefix + Data(HMAC<SHA256>.authenticationCode(for: Data(text.utf8), using: key)).base64URLEncodedString()
    }
}
