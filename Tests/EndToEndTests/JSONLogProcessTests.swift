import Foundation
import TestSupport
import Testing

/// `SECUREPUSH_LOG_FORMAT` in a real service process (ServiceRunner sets the logger up before anything else).
@Suite("JSON logs from a service process")
struct JSONLogProcessTests {
    /// Runs auth-service with `environment` until it exits (it is configured to refuse to start); its stderr.
    func refusedStart(_ extra: [String: String]) async throws -> (status: Int32, lines: [Substring]) {
        let environment = [
            "SECUREPUSH_ENV": "production", "SECUREPUSH_HOST": "0.0.0.0", "SECUREPUSH_AUTH_PORT": "0",
            "SECUREPUSH_AUTH_SIGNING_KEY_FILE": "/nonexistent/signing.pem",
            "SECUREPUSH_DATA_DIR": TemporaryDirectory.processRootURL.appendingPathComponent(
                "json-log-\(UUID().uuidString)"
            ).path,
        ].merging(extra) { _, extra in extra }
        let (status, output) = try await ServiceProcess.runUntilExit("auth-service", environment: environment)
        return (status, output.split(separator: "\n"))
    }

    @Test("with SECUREPUSH_LOG_FORMAT=json the service's log lines are JSON objects a pipeline can parse")
    func jsonLines() async throws {
        let (status, lines) = try await refusedStart(["SECUREPUSH_LOG_FORMAT": "json"])
        #expect(status == 1)
        let objects = lines.compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let event = try #require(objects.first { $0["security.event"] as? String == "config.production.refused" })
        #expect(event["level"] as? String == "notice")
        #expect(event["logger"] as? String != nil)
        #expect((event["timestamp"] as? String)?.hasSuffix("Z") == true)
        // The refusal itself stays the one plain line a person reads first.
        #expect(lines.filter { $0.hasPrefix("auth-service: configuration error: SECUREPUSH_HOST=0.0.0.0") }.count == 1)
    }

    @Test("an unknown SECUREPUSH_LOG_FORMAT stops the service with one line naming the variable")
    func unknownFormat() async throws {
        let (status, lines) = try await refusedStart(["SECUREPUSH_LOG_FORMAT": "xml"])
        #expect(status == 1)
        #expect(lines.contains { $0.contains("SECUREPUSH_LOG_FORMAT must be 'text' or 'json', got 'xml'") }, "\(lines)")
    }
}
