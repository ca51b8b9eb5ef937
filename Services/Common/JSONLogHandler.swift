import Foundation
import Logging

/// A swift-log handler that writes one JSON object per line (`SECUREPUSH_LOG_FORMAT=json`), for log pipelines that
/// parse structured logs (Loki, Elasticsearch, Cloud Logging, …).
///
/// Each line: `timestamp` (RFC 3339, UTC, milliseconds), `level`, `logger` (the label), `message`, then every metadata
/// key at the top level (`notification.id`, `security.event`, …; docs/operations.md). Metadata from the logger's
/// metadata provider is included, so a tracing provider's `trace_id` and `span_id` appear while a span is active. A
/// metadata key that collides with one of the four fixed keys is written as `metadata.<key>`.
public struct JSONLogHandler: LogHandler {
    /// Where finished lines go (each without its newline).
    public typealias Sink = @Sendable (String) -> Void

    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let sink: Sink
    private let now: @Sendable () -> Date

    /// - Parameters:
    ///   - label: the logger's label, written as `logger`.
    ///   - metadataProvider: contributes metadata to every line (e.g. the active span's ids).
    ///   - now: the clock of `timestamp`.
    ///   - sink: receives each line; standard error by default.
    public init(
        label: String,
        metadataProvider: Logger.MetadataProvider? = nil,
        now: @escaping @Sendable () -> Date = { Date() },
        sink: @escaping Sink = JSONLogHandler.standardError
    ) {
        self.label = label
        self.metadataProvider = metadataProvider
        self.now = now
        self.sink = sink
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { _, provided in provided } }
        if let explicit = event.metadata { merged.merge(explicit) { _, explicit in explicit } }

        var line = "{\"timestamp\":"
        JSONText.appendString(Self.timestamp(now()), to: &line)
        line += ",\"level\":"
        JSONText.appendString(event.level.rawValue, to: &line)
        line += ",\"logger\":"
        JSONText.appendString(label, to: &line)
        line += ",\"message\":"
        JSONText.appendString(event.message.description, to: &line)
        for key in merged.keys.sorted() {
            line += ","
            JSONText.appendString(Self.reserved.contains(key) ? "metadata.\(key)" : key, to: &line)
            line += ":"
            JSONText.append(merged[key]!, to: &line)
        }
        line += "}"
        sink(line)
    }

    /// The keys every line has; metadata keys equal to one of them are prefixed.
    static let reserved: Set<String> = ["timestamp", "level", "logger", "message"]

    /// Writes a line and its newline to standard error in one write, so concurrent lines never interleave.
    public static let standardError: Sink = { line in
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// RFC 3339 in UTC with milliseconds, e.g. `2026-11-24T04:10:00.123Z`.
    static func timestamp(_ date: Date) -> String {
        date.formatted(Self.timestampStyle)
    }

    private static let timestampStyle = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt)
}

/// Appends JSON text for strings and swift-log metadata values.
enum JSONText {
    /// `value` as a JSON string literal (quotes, backslashes and control characters escaped).
    static func appendString(_ value: String, to text: inout String) {
        text.append("\"")
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": text.append("\\\"")
            case "\\": text.append("\\\\")
            case "\n": text.append("\\n")
            case "\r": text.append("\\r")
            case "\t": text.append("\\t")
            case _ where scalar.value < 0x20 || scalar.value == 0x2028 || scalar.value == 0x2029:
                text.append(String(format: "\\u%04x", scalar.value))
            default: text.unicodeScalars.append(scalar)
            }
        }
        text.append("\"")
    }

    /// A metadata value: strings (and string-convertibles) as strings, arrays and dictionaries as JSON.
    static func append(_ value: Logger.Metadata.Value, to text: inout String) {
        switch value {
        case .string(let string): appendString(string, to: &text)
        case .stringConvertible(let convertible): appendString(convertible.description, to: &text)
        case .array(let values):
            text.append("[")
            for (index, element) in values.enumerated() {
                if index > 0 { text.append(",") }
                append(element, to: &text)
            }
            text.append("]")
        case .dictionary(let dictionary):
            text.append("{")
            for (index, key) in dictionary.keys.sorted().enumerated() {
                if index > 0 { text.append(",") }
                appendString(key, to: &text)
                text.append(":")
                append(dictionary[key]!, to: &text)
            }
            text.append("}")
        }
    }
}
