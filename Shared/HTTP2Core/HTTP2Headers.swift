/// An ordered list of header fields with lowercase names, as HTTP/2 carries them (RFC 9113 §8.2).
public struct HTTP2Headers: Sendable, Hashable, ExpressibleByDictionaryLiteral {
    /// One header field.
    public struct Field: Sendable, Hashable {
        /// The lowercase field name.
        public var name: String
        /// The field value.
        public var value: String
    }

    /// The fields in the order they were received or added.
    public private(set) var fields: [Field] = []

    /// No fields.
    public init() {}

    public init(dictionaryLiteral elements: (String, String)...) {
        for (name, value) in elements { add(name, value) }
    }

    /// Appends a field; the name is lowercased.
    public mutating func add(_ name: String, _ value: String) {
        fields.append(Field(name: name.lowercased(), value: value))
    }

    /// Appends every field of `other`, in order (their names are lowercase already).
    public mutating func append(contentsOf other: HTTP2Headers) {
        fields.append(contentsOf: other.fields)
    }

    /// Appends a field whose name is already lowercase (HTTP/2 requires it, and nghttp2 checks it).
    mutating func append(lowercased name: String, _ value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// The first value of the field `name` (case-insensitive), if any.
    public subscript(_ name: String) -> String? {
        let wanted = Self.lowercased(name)
        return fields.first { $0.name == wanted }?.value
    }

    /// Every value of the field `name` (case-insensitive), in order.
    public func values(_ name: String) -> [String] {
        let wanted = Self.lowercased(name)
        return fields.filter { $0.name == wanted }.map(\.value)
    }

    /// `name` in lowercase; the name itself when it is ASCII with no uppercase letter (every lookup of ours passes a
    /// lowercase literal: no new string per request).
    private static func lowercased(_ name: String) -> String {
        let plain = name.utf8.withContiguousStorageIfAvailable { bytes in
            !bytes.contains { $0 &- UInt8(ascii: "A") < 26 || $0 >= 0x80 }
        }
        return plain == true ? name : name.lowercased()
    }

    /// How many fields there are.
    public var count: Int { fields.count }
}
