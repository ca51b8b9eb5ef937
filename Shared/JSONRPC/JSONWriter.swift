import Foundation

/// Writes compact JSON text straight into a byte buffer, byte for byte as ``RPCCodec/makeEncoder()`` writes the same
/// values: strings escaped as Foundation escapes them (`\b`, `\f`, `\n`, `\r`, `\t`, other controls as `\u00xx`,
/// slashes left alone), dates as ISO 8601 in whole seconds (`2026-11-28T03:20:00Z`), object members in the order
/// they are written (a caller writes them sorted, as `.sortedKeys` would).
///
/// The hot results (``RPCDirectEncodable``) are written with it instead of a `JSONEncoder` round trip: no boxed
/// containers, no generic metadata, one buffer.
public struct JSONWriter: Sendable {
    /// The text written so far.
    public private(set) var bytes: [UInt8]
    private var needsComma = false

    /// - Parameter capacity: bytes reserved up front (a response's expected size).
    public init(capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    // MARK: - Objects

    /// Writes `{` and opens an object whose members follow.
    public mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    /// Writes `}`.
    public mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    /// Writes a member's key and the colon; its value is written next. `key` must need no escaping.
    public mutating func key(_ key: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        key.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
        needsComma = false
    }

    /// Writes a string member; nothing when `value` is `nil` (as `encodeIfPresent` leaves it out).
    public mutating func member(_ key: StaticString, _ value: String?) {
        guard let value else { return }
        self.key(key)
        string(value)
    }

    /// Writes a date member; nothing when `value` is `nil`.
    public mutating func member(_ key: StaticString, _ value: Date?) {
        guard let value else { return }
        self.key(key)
        date(value)
    }

    /// Writes an integer member; nothing when `value` is `nil`.
    public mutating func member(_ key: StaticString, _ value: Int?) {
        guard let value else { return }
        self.key(key)
        integer(Int64(value))
    }

    /// Writes a `true`/`false` member; nothing when `value` is `nil`.
    public mutating func member(_ key: StaticString, _ value: Bool?) {
        guard let value else { return }
        self.key(key)
        raw(value ? "true" : "false")
    }

    // MARK: - Arrays

    /// Writes `[` and opens an array whose elements follow.
    public mutating func beginArray() {
        separate()
        bytes.append(UInt8(ascii: "["))
        needsComma = false
    }

    /// Writes `]`.
    public mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// Writes an array member: each element as `element` writes it (`[]` when there are none).
    public mutating func member<Element>(
        _ key: StaticString, _ elements: [Element], _ element: (Element, inout JSONWriter) -> Void
    ) {
        self.key(key)
        beginArray()
        for value in elements { element(value, &self) }
        endArray()
    }

    // MARK: - Values

    /// Writes a JSON string.
    public mutating func string(_ value: String) {
        separate()
        Self.writeString(value, to: &bytes)
        needsComma = true
    }

    /// Writes an integer.
    public mutating func integer(_ value: Int64) {
        separate()
        Self.writeInteger(value, to: &bytes)
        needsComma = true
    }

    /// Writes a date as `.iso8601` encodes it: UTC, whole seconds (the fraction is dropped, not rounded).
    public mutating func date(_ value: Date) {
        separate()
        Self.writeDate(value, to: &bytes)
        needsComma = true
    }

    /// Writes a literal that is JSON already (`null`, `"2.0"`).
    public mutating func raw(_ text: StaticString) {
        separate()
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
        needsComma = true
    }

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }

    // MARK: - Encoding

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Appends `string` as a JSON string, escaped as Foundation's `JSONEncoder` escapes it; with `namingBackspace`
    /// false, backspace and form feed are written `\u0008` and `\u000c` instead of `\b` and `\f` (the audit trail's
    /// bodies, hashed as written since their first version).
    public static func writeString(_ string: String, to output: inout [UInt8], namingBackspace: Bool = true) {
        output.append(UInt8(ascii: "\""))
        var string = string
        string.withUTF8 { utf8 in
            var start = 0
            for index in utf8.indices {
                let byte = utf8[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                output.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
                start = index + 1
                output.append(UInt8(ascii: "\\"))
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): output.append(byte)
                case 0x08 where namingBackspace: output.append(UInt8(ascii: "b"))
                case 0x0C where namingBackspace: output.append(UInt8(ascii: "f"))
                case 0x0A: output.append(UInt8(ascii: "n"))
                case 0x0D: output.append(UInt8(ascii: "r"))
                case 0x09: output.append(UInt8(ascii: "t"))
                default:
                    output.append(contentsOf: [
                        UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hexDigits[Int(byte >> 4)],
                        hexDigits[Int(byte & 0x0F)],
                    ])
                }
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
        }
        output.append(UInt8(ascii: "\""))
    }

    /// Appends the decimal digits of `value`.
    public static func writeInteger(_ value: Int64, to output: inout [UInt8]) {
        if value < 0 { output.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var position = digits.count
            repeat {
                position -= 1
                digits[position] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            output.append(contentsOf: digits[position...])
        }
    }

    /// Dates from year 1970 to 9999 are written here; others (never a stored time) by Foundation's formatter.
    private static let directDates: ClosedRange<Double> = 0...253_402_300_799

    /// Appends `date` as `.iso8601` writes it.
    static func writeDate(_ date: Date, to output: inout [UInt8]) {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        guard directDates.contains(seconds) else {
            output.append(UInt8(ascii: "\""))
            output.append(contentsOf: date.formatted(.iso8601).utf8)
            output.append(UInt8(ascii: "\""))
            return
        }
        let total = Int(seconds)
        let (days, secondOfDay) = total.quotientAndRemainder(dividingBy: 86_400)
        let (year, month, day) = civilDate(daysSince1970: days)
        func two(_ value: Int) {
            output.append(UInt8(ascii: "0") + UInt8(value / 10))
            output.append(UInt8(ascii: "0") + UInt8(value % 10))
        }
        output.append(UInt8(ascii: "\""))
        two(year / 100)
        two(year % 100)
        output.append(UInt8(ascii: "-"))
        two(month)
        output.append(UInt8(ascii: "-"))
        two(day)
        output.append(UInt8(ascii: "T"))
        two(secondOfDay / 3600)
        output.append(UInt8(ascii: ":"))
        two(secondOfDay / 60 % 60)
        output.append(UInt8(ascii: ":"))
        two(secondOfDay % 60)
        output.append(contentsOf: [UInt8(ascii: "Z"), UInt8(ascii: "\"")])
    }

    /// The proleptic Gregorian date `days` after 1970-01-01 (Howard Hinnant's `civil_from_days`, for `days >= 0`).
    static func civilDate(daysSince1970 days: Int) -> (year: Int, month: Int, day: Int) {
        let shifted = days + 719_468
        let era = shifted / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }
}
