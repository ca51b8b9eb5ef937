import Foundation
import Synchronization
import TestSupport

/// One Server-Sent Event as a client parses it.
struct ServerSentEvent: Equatable {
    var id: String?
    var event: String?
    var data: String?
}

/// `curl --http2-prior-knowledge -N` reading an event stream in the background, as a device would.
/// Every run is bounded by `--max-time`, and `stop()` ends it earlier.
final class CurlStream: @unchecked Sendable {
    private final class Buffer: Sendable {
        let data = Mutex(Data())
    }

    private let process = Process()
    private let buffer = Buffer()
    /// Where curl dumps the response headers.
    let headersFile: URL

    init(url: String, token: String?, maxSeconds: Int = 30) throws {
        headersFile = TemporaryDirectory.processRootURL.appendingPathComponent(
            "dispatch-sse-\(UUID().uuidString).headers")
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        var arguments = ["--http2-prior-knowledge", "-N", "-s", "--max-time", "\(maxSeconds)", "-D", headersFile.path]
        if let token { arguments += ["-H", "Authorization: Bearer \(token)"] }
        process.arguments = arguments + [url]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        pipe.fileHandleForReading.readabilityHandler = { [buffer] handle in
            let chunk = handle.availableData
            if chunk.isEmpty {
                handle.readabilityHandler = nil
            } else {
                buffer.data.withLock { $0.append(chunk) }
            }
        }
        try process.run()
    }

    /// Everything received so far.
    var text: String { String(decoding: buffer.data.withLock { $0 }, as: UTF8.self) }

    /// The complete events received so far (comments left out).
    var events: [ServerSentEvent] {
        let blocks = text.components(separatedBy: "\n\n").dropLast()  // the last piece is incomplete or empty
        return blocks.compactMap { block in
            var event = ServerSentEvent()
            for line in block.split(separator: "\n", omittingEmptySubsequences: true) where !line.hasPrefix(":") {
                let parts = line.split(separator: ":", maxSplits: 1)
                let value = parts.count == 2 ? String(parts[1].drop(while: { $0 == " " })) : ""
                switch parts.first {
                case "id": event.id = value
                case "event": event.event = value
                case "data": event.data = value
                default: break
                }
            }
            return event == ServerSentEvent() ? nil : event
        }
    }

    /// The ids of the events received so far, in order.
    var ids: [String] { events.compactMap(\.id) }

    /// The response headers, lowercased names, once they arrived.
    var headers: [String: String] {
        guard let raw = try? String(contentsOf: headersFile, encoding: .utf8) else { return [:] }
        var headers: [String: String] = [:]
        for line in raw.components(separatedBy: "\r\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { continue }
            headers[parts[0].lowercased()] = parts[1].trimmingCharacters(in: .whitespaces)
        }
        return headers
    }

    var isRunning: Bool { process.isRunning }

    /// Waits (bounded) until `condition` holds; returns whether it did.
    func waitUntil(timeout: Duration = .seconds(10), _ condition: (CurlStream) -> Bool) async -> Bool {
        await eventually(timeout: timeout) { condition(self) }
    }

    /// Ends curl at once with SIGKILL, like a device losing its connection (no orderly HTTP/2 close).
    func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: headersFile)
    }
}

/// A single `curl --http2-prior-knowledge` GET (HTTP/1.1 when `http2` is false; a POST when `extra` has `-d`) that
/// must answer (not stream): status and body.
func curlGet(_ url: String, token: String?, http2: Bool = true, extra: [String] = []) async throws -> (
    status: Int, body: String
) {
    var arguments = [http2 ? "--http2-prior-knowledge" : "--http1.1"] + extra
    if let token { arguments += ["-H", "Authorization: Bearer \(token)"] }
    let result = try await Curl.run(arguments + [url])
    return (result.status, result.body)
}
