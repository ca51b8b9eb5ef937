import Foundation

/// A result written straight into its response with ``JSONWriter``, byte for byte what ``RPCCodec/makeEncoder()``
/// writes for it (a contract test holds each conformance to that), so the hot methods skip the `JSONEncoder` round
/// trip. Members are written in sorted key order, absent optionals left out.
public protocol RPCDirectEncodable: Encodable, Sendable {
    /// Writes the value as one JSON value.
    func write(to writer: inout JSONWriter)
}

extension RPCDirectEncodable {
    /// The value's JSON text, byte for byte what ``RPCCodec/makeEncoder()`` encodes for it (a result kept for an
    /// idempotent replay, an event's data).
    public func directJSON(capacity: Int = 256) -> String {
        var writer = JSONWriter(capacity: capacity)
        write(to: &writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}

extension Empty: RPCDirectEncodable {
    /// `{}`, the result of the methods that answer nothing (`devices.ack`, `push.cancel`, …).
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.endObject()
    }
}

extension RPCRequestEnvelope {
    /// The request written with ``JSONWriter`` when its params are ``RPCDirectEncodable`` and its id a string, an
    /// integer or absent (`{"id":…,"jsonrpc":"2.0","method":…,"params":…}`, the keys sorted as the encoder sorts
    /// them); `nil` for anything else, which the encoder writes.
    func directlyEncoded() -> Data? {
        guard let params = params as? any RPCDirectEncodable else { return nil }
        var writer = JSONWriter(capacity: 512)
        writer.beginObject()
        switch id {
        case .string(let text)?:
            writer.key("id")
            writer.string(text)
        case .int(let number)?:
            writer.key("id")
            writer.integer(number)
        case nil: break
        default: return nil
        }
        writer.key("jsonrpc")
        writer.raw("\"2.0\"")
        writer.key("method")
        writer.string(method)
        writer.key("params")
        params.write(to: &writer)
        writer.endObject()
        return Data(writer.bytes)
    }
}

extension RPCResponse {
    /// The response written with ``JSONWriter`` when its result is ``RPCDirectEncodable`` and its id a string, an
    /// integer or null (`{"id":…,"jsonrpc":"2.0","result":…}`, the keys sorted as the encoder sorts them); `nil`
    /// for anything else, which the encoder writes.
    func directlyEncoded() -> Data? {
        guard case .result(let value) = outcome, let result = value as? any RPCDirectEncodable else { return nil }
        return Self.directlyEncoded(id: id, result: result)
    }

    /// The response of call `id` with `result`, written with ``JSONWriter`` (see ``directlyEncoded()``); `nil` for an
    /// id that is not a string, an integer or null.
    static func directlyEncoded(id: JSONValue, result: any RPCDirectEncodable) -> Data? {
        var writer = JSONWriter(capacity: 512)
        writer.beginObject()
        writer.key("id")
        switch id {
        case .string(let text): writer.string(text)
        case .int(let number): writer.integer(number)
        case .null: writer.raw("null")
        default: return nil
        }
        writer.key("jsonrpc")
        writer.raw("\"2.0\"")
        writer.key("result")
        result.write(to: &writer)
        writer.endObject()
        return Data(writer.bytes)
    }
}
