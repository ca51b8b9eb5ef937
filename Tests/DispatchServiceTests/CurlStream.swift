import Foundation
import TestSupport

/// One Server-Sent Event as a client parses it.
struct ServerSentEvent: Equatable {
    var id: String?
    var event: String?
    var data: String?
}

/// `curl --http2-prior-knowledge -N` reading an event stream in the background, as a device would.
/// Every run is bounded by `--max-time`, and `stop()` ends it earlier.
///
/// curl writes the body to a file (`-N`: each chunk as it arrives), which ``text`` reads. A pipe read with a
/// `readabilityHandler` would put a dispatch source on a pipe whose writer `stop()` kills: the hang-up that
/// corelibs-libdispatch's epoll loop has crashed on (swift-corelibs-libdispatch#949,
/// swift-corelibs-foundation#3276), which once took the whole test process down in CI.
final class CurlStream: @unchecked Sendable {
    private let process = Process()
    /// Where curl writes the body, and dumps the response headers.
    private let bodyFile: URL
    let headersFile: URL

    init(url: String, token: String?, maxSeconds: Int = 30) throws {
        let name = "dispatch-sse-\(UUID().uuidString)"
        bodyFile = TemporaryDirectory.processRootURL.appendingPathComponent("\(name).body")
        headersFile = TemporaryDirectory.processRootURL.appendingPathComponent("\(name).headers")
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        var arguments = [
            "--http2-prior-knowledge", "-N", "-s", "--max-time", "\(maxSeconds)", "-D", headersFile.path,
            "-o", bodyFile.path,
        ]
        if let token { arguments += ["-H", "Authorization: Bearer \(token)"] }
        process.arguments = arguments + [url]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    /// Everything received so far.
    var text: String {
        let data = FileManager.default.contents(atPath: bodyFile.path) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

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
    }

    /// What curl received stays readable after `stop()`, until the stream is gone.
    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(at: headersFile)
        try? FileManager.default.removeItem(at: bodyFile)
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
