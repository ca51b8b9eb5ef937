extension JSONValue {
    /// The value as compact JSON text (UTF-8), members in no particular order.
    ///
    /// Used to hand a call's params to `JSONDecoder` for the typed decode; much cheaper than `JSONEncoder` for a
    /// value that is already a tree of JSON values.
    public var jsonBytes: [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(64)
        write(to: &output)
        return output
    }

    private func write(to output: inout [UInt8]) {
        switch self {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let value): output.append(contentsOf: (value ? "true" : "false").utf8)
        case .int(let value): JSONWriter.writeInteger(value, to: &output)
        case .double(let value): output.append(contentsOf: String(value).utf8)
        case .string(let value): Self.writeString(value, to: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (offset, element) in elements.enumerated() {
                if offset > 0 { output.append(UInt8(ascii: ",")) }
                element.write(to: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            var first = true
            for (key, value) in members {
                if !first { output.append(UInt8(ascii: ",")) }
                first = false
                Self.writeString(key, to: &output)
                output.append(UInt8(ascii: ":"))
                value.write(to: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    /// Strings are escaped as ``JSONWriter`` (and Foundation's `JSONEncoder`) escape them.
    private static func writeString(_ string: String, to output: inout [UInt8]) {
        JSONWriter.writeString(string, to: &output)
    }
}
