import Foundation

/// The one JSON configuration every SecurePush peer uses, so both sides of a wire agree on dates and key order.
public enum RPCCodec {
    /// An encoder with sorted keys (stable output for golden files and caches) and ISO 8601 dates.
    public static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }

    /// A decoder that reads ISO 8601 dates.
    public static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom(decodeISO8601)
        return decoder
    }

    /// Accepts what `.iso8601` accepts, and fractional seconds too (JavaScript's `toISOString()` writes
    /// `2026-11-22T10:00:00.000Z`); written out because `.iso8601` reports a malformed date at the path of the
    /// enclosing object, so an invalid-params message could not name the date's own field.
    private static func decodeISO8601(_ decoder: any Decoder) throws -> Date {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard
            let date = (try? Date(text, strategy: .iso8601))
                ?? (try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
        else {
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription: "expected an ISO 8601 date such as 2026-11-22T10:00:00Z"
            )
        }
        return date
    }
}
