import Foundation
import Logging
import ServiceCore
import Synchronization
import Testing

/// `SECUREPUSH_LOG_FORMAT=json`: one JSON object per line that a log pipeline can parse.
@Suite("JSON logs")
struct JSONLogHandlerTests {
    /// Collects the lines a handler writes.
    final class Lines: Sendable {
        private let lines = Mutex<[String]>([])
        var all: [String] { lines.withLock { $0 } }
        func append(_ line: String) { lines.withLock { $0.append(line) } }
        /// Each line parsed as a JSON object.
        func objects() throws -> [[String: Any]] {
            try all.map { line in
                try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            }
        }
    }

    static let fixedNow = Date(timeIntervalSince1970: 1_795_000_000.125)

    func logger(_ lines: Lines, provider: Logger.MetadataProvider? = nil) -> Logger {
        var logger = Logger(label: "push-dispatch") { label in
            JSONLogHandler(label: label, metadataProvider: provider, now: { Self.fixedNow }) { lines.append($0) }
        }
        logger.logLevel = .debug
        return logger
    }

    @Test("each event is one line: timestamp, level, logger, message and the metadata keys at the top level")
    func oneObjectPerLine() throws {
        let lines = Lines()
        var logger = logger(lines)
        logger[metadataKey: "push.platform"] = "apns"
        logger.notice("push.send.recorded", metadata: ["notification.id": "n-1", "push.deliveries": "2"])
        logger.trace("below the level")

        #expect(lines.all.count == 1)
        #expect(!lines.all[0].contains("\n"))
        let object = try #require(try lines.objects().first)
        #expect(object["timestamp"] as? String == "2026-11-18T11:06:40.125Z")
        #expect(object["level"] as? String == "notice")
        #expect(object["logger"] as? String == "push-dispatch")
        #expect(object["message"] as? String == "push.send.recorded")
        #expect(object["notification.id"] as? String == "n-1")
        #expect(object["push.deliveries"] as? String == "2")
        #expect(object["push.platform"] as? String == "apns")
    }

    @Test("quotes, backslashes, newlines and control characters in messages and values stay one valid line")
    func escaping() throws {
        let lines = Lines()
        let hostile = "a \"quoted\" \\ path\nsecond line\r\t\u{1}\u{2028}end"
        logger(lines).error("\(hostile)", metadata: ["error": "\(hostile)", hostile: "key too"])

        #expect(lines.all.count == 1)
        #expect(!lines.all[0].contains("\n") && !lines.all[0].contains("\r"))
        let object = try #require(try lines.objects().first)
        #expect(object["message"] as? String == hostile)
        #expect(object["error"] as? String == hostile)
        #expect(object[hostile] as? String == "key too")
    }

    @Test("nested metadata becomes JSON arrays and objects; a key named like a fixed field is prefixed")
    func nestedAndReserved() throws {
        let lines = Lines()
        logger(lines).info(
            "event",
            metadata: [
                "scopes": ["push:send", "users:read"], "limits": ["per_minute": "120"], "message": "not the message",
            ])
        let object = try #require(try lines.objects().first)
        #expect(object["scopes"] as? [String] == ["push:send", "users:read"])
        #expect(object["limits"] as? [String: String] == ["per_minute": "120"])
        #expect(object["message"] as? String == "event")
        #expect(object["metadata.message"] as? String == "not the message")
    }

    @Test("metadata from the logger's provider (a tracing provider's trace_id and span_id) is on every line")
    func providerMetadata() throws {
        let lines = Lines()
        let provider = Logger.MetadataProvider {
            ["trace_id": "4bf92f3577b34da6a3ce929d0e0e4736", "span_id": "00f067aa0ba902b7"]
        }
        logger(lines, provider: provider).info("store.get")
        let object = try #require(try lines.objects().first)
        #expect(object["trace_id"] as? String == "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(object["span_id"] as? String == "00f067aa0ba902b7")
    }

    @Test("SECUREPUSH_LOG_FORMAT picks text or json; anything else is refused naming the variable")
    func formatVariable() throws {
        #expect(try ServiceRunner.LogFormat(environment: ServiceEnvironment([:])) == .text)
        #expect(
            try ServiceRunner.LogFormat(environment: ServiceEnvironment(["SECUREPUSH_LOG_FORMAT": "JSON"])) == .json)
        let refusal = #expect(throws: ConfigurationError.self) {
            try ServiceRunner.LogFormat(environment: ServiceEnvironment(["SECUREPUSH_LOG_FORMAT": "xml"]))
        }
        #expect(refusal?.description.contains("SECUREPUSH_LOG_FORMAT") == true)
    }
}
