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
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
