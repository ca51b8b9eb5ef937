/// A W3C Trace Context `traceparent` value (`00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>`): the only trace
/// data SecurePush carries in payloads, events and headers besides `tracestate`.
///
/// Parsing is strict and never throws: anything malformed is `nil` and simply ignored (a new trace starts).
public struct TraceParent: Sendable, Hashable, CustomStringConvertible {
    /// 32 lowercase hex digits, not all zero.
    public let traceID: String
    /// 16 lowercase hex digits, not all zero: the span that is the parent of whatever continues this trace.
    public let spanID: String
    /// The trace flags (bit 0: sampled).
    public let flags: UInt8

    /// The header's exact length for version `00`.
    public static let length = 55

    /// Parses a `traceparent` header value; `nil` when it is not a valid version `00` value (or a later version's
    /// value that does not start like one, as the specification asks).
    public init?(_ header: String) {
        let bytes = Array(header.utf8)
        // Versions after 00 may append fields after a dash; version 00 is exactly 55 bytes.
        guard bytes.count >= Self.length, bytes.count <= 512 else { return nil }
        guard let version = Self.hexByte(bytes[0], bytes[1]), version != 0xff else { return nil }
        if version == 0 {
            guard bytes.count == Self.length else { return nil }
        } else if bytes.count > Self.length, bytes[Self.length] != UInt8(ascii: "-") {
            return nil
        }
        let dash = UInt8(ascii: "-")
        guard bytes[2] == dash, bytes[35] == dash, bytes[52] == dash else { return nil }
        let trace = bytes[3..<35]
        let span = bytes[36..<52]
        guard trace.allSatisfy(Self.isLowerHex), span.allSatisfy(Self.isLowerHex) else { return nil }
        guard trace.contains(where: { $0 != UInt8(ascii: "0") }), span.contains(where: { $0 != UInt8(ascii: "0") })
        else { return nil }
        guard let flags = Self.hexByte(bytes[53], bytes[54]) else { return nil }
        traceID = String(decoding: trace, as: UTF8.self)
        spanID = String(decoding: span, as: UTF8.self)
        self.flags = flags
    }

    /// A value for `traceID` and `spanID` (checked like a parsed header's); `nil` when either is not valid.
    public init?(traceID: String, spanID: String, sampled: Bool = true) {
        self.init("00-\(traceID)-\(spanID)-\(sampled ? "01" : "00")")
    }

    /// Whether the sampled flag is set.
    public var isSampled: Bool { flags & 1 == 1 }

    /// The version `00` header value.
    public var description: String {
        let hex = Array("0123456789abcdef")
        return "00-\(traceID)-\(spanID)-\(hex[Int(flags >> 4)])\(hex[Int(flags & 0xf)])"
    }

    private static func isLowerHex(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        default: nil
        }
    }

    private static func hexByte(_ high: UInt8, _ low: UInt8) -> UInt8? {
        guard let high = hexValue(high), let low = hexValue(low) else { return nil }
        return high << 4 | low
    }
}
