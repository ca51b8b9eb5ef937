import Foundation
import HTTP2Core
import NIOCore
import NIOSSL
import Synchronization
import Testing

/// What one client can cost the core (issue 23): requests that never end, bodies that trickle, connections held from
/// one address, a client that never reads. Counted quantities, not wall-clock or memory bounds.
@Suite(
    "HTTP/2 core: bounded requests and connections", .serialized,
    .enabled(
        if: PeerTools.hasPython, "requires python3-h2 and python3-httpx: apt-get install python3-h2 python3-httpx"),
    .enabled(if: PeerTools.hasCurl, "requires curl: apt-get install curl")
)
struct BoundedRequestTests {
    /// A small budget, so the attack reaches it quickly: 256 KiB bodies, 512 KiB per connection, 2 s to send.
    private static var limits: HTTP2Limits {
        var limits = HTTP2Limits()
        limits.maxBodyBytes = 256 << 10
        limits.maxConnectionBufferBytes = 512 << 10
        limits.requestTimeout = .seconds(2)
        return limits
    }

    @Test(
        "requests that never end or trickle get 408 after the request timeout, and buffered bytes stay in the budget",
        arguments: [false, true])
    func unfinishedRequests(overTLS: Bool) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("h2core-bounds-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let tls = overTLS ? try InteropTests.serverTLS(in: directory) : nil
        let server = try await TestServer(tls: tls, limits: Self.limits)
        let load = server.load
        let result = try await Subprocess.run(
            try PeerTools.requirePython(),
            [
                "-c", boundsScript, "unfinished", String(server.port), "8",
                overTLS ? directory + "/ca.pem" : "-",
            ])
        let peak = load.peakBufferedRequestBytes
        let report = try Self.decode(result)
        let status = report["status"] as? [String: [Double]] ?? [:]
        let sent = (report["sent"] as? [String: Int] ?? [:]).values.reduce(0, +)
        let budget = Self.limits.maxConnectionBufferBytes
        // The client filled at least half the budget before the timeout (not necessarily all of it on a slow machine;
        // under AddressSanitizer, where the server is several times slower, only that something was buffered).
        let floor = dlsym(nil, "__asan_init") == nil ? budget / 2 : 1
        #expect(sent >= floor, "the client sent \(sent) bytes")
        // Six streams, none finished: every one answered 408 once the timeout passed, none before it. The first 408s
        // free buffer, flow control lets a bulk stream send on, and one that so crosses maxBodyBytes before its own
        // timer fires is answered 413 in that moment: allowed only for a stream that did send more than the limit.
        let sentByStream = report["sent"] as? [String: Int] ?? [:]
        #expect(status.count == 6, "\(report)")
        #expect(
            status.allSatisfy { stream, answer in
                let overLimit = (sentByStream[stream] ?? 0) > Self.limits.maxBodyBytes
                return (answer.first == 408 || (overLimit && answer.first == 413)) && answer[1] >= 1.9 && answer[1] < 6
            }, "\(report)")
        // The bulk streams pushed as hard as flow control allowed, and got at most the budget and one connection
        // window (65,535 bytes) more, not megabytes.
        #expect(peak >= floor, "the attack should fill the buffer: peak \(peak)")
        #expect(peak <= budget + 65_535 + 16_384, "buffered \(peak) bytes, budget \(budget)")
        #expect(try await eventually { load.bufferedRequestBytes == 0 }, "the streams' memory is freed")
        let after = try await Subprocess.curl(
            overTLS
                ? ["--cacert", directory + "/ca.pem", "--http2", "https://localhost:\(server.port)/hello"]
                : ["--http2-prior-knowledge", "\(server.url)/hello"])
        await server.shutdown()
        #expect(after.status == 200)
    }

    @Test("an HTTP/1.1 request whose body never completes gets 408 and its connection closes")
    func unfinishedHTTP1Request() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("h2core-bounds-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try await TestServer(tls: try InteropTests.serverTLS(in: directory), limits: Self.limits)
        let load = server.load
        let result = try await Subprocess.run(
            try PeerTools.requirePython(),
            ["-c", boundsScript, "http1-unfinished", String(server.port), directory + "/ca.pem"])
        let peak = load.peakBufferedRequestBytes
        await server.shutdown()
        let report = try Self.decode(result)
        #expect(report["status_line"] as? String == "HTTP/1.1 408 Request Timeout", "\(report)")
        let closedAfter = report["closed_after"] as? Double ?? 99
        #expect(closedAfter >= 1.9 && closedAfter < 8, "\(report)")
        #expect(peak > 0 && peak <= 1_000, "the partial body is counted: peak \(peak)")
        #expect(load.bufferedRequestBytes == 0)
    }

    @Test("1,500 connections from one address leave at most 512 open, and another address is still served")
    func connectionsPerAddress() async throws {
        let refused = Atomic<Int>(0)
        let admission = HTTP2ConnectionAdmission(onRefused: { reason in
            if reason == .perAddress { refused.add(1, ordering: .relaxed) }
        })
        let server = try await TestServer(admission: admission)
        let load = server.load
        // Under AddressSanitizer (.ci/asan) 700: still past the cap, without starving the suite's other tests, which
        // read their peers' answers within 2 s, of the two cores for seconds.
        let attempts = dlsym(nil, "__asan_init") == nil ? 1_500 : 700
        let result = try await Subprocess.run(
            try PeerTools.requirePython(),
            ["-c", boundsScript, "hold", String(server.port), String(attempts), "127.0.0.9"])
        let peak = load.peakOpenConnections
        let report = try Self.decode(result)
        #expect(report["open"] as? Int ?? 0 <= 512, "\(report)")
        #expect(report["open"] as? Int ?? 0 >= 500, "the first 512 are kept: \(report)")
        #expect(report["hello"] as? Int == 200, "127.0.0.1 is served beside them: \(report)")
        #expect(peak <= 513, "at most 512 from 127.0.0.9 and one from 127.0.0.1; saw \(peak)")
        #expect(refused.load(ordering: .relaxed) >= attempts - 512 - 20)
        #expect(try await eventually { load.openConnections == 0 })
        await server.shutdown()
    }

    @Test("a client that never reads its response is disconnected once the stream stalled for the idle timeout")
    func stalledResponse() async throws {
        var limits = HTTP2Limits()
        limits.idleTimeout = .seconds(2)
        let server = try await TestServer(limits: limits)
        let result = try await Subprocess.run(
            try PeerTools.requirePython(), ["-c", boundsScript, "never-read", String(server.port), "4000000", "6"])
        let report = try Self.decode(result)
        #expect(report["closed"] as? Bool == true, "\(report)")
        #expect((report["received"] as? Int ?? .max) < 4_000_000, "\(report)")
        let load = server.load
        #expect(try await eventually { load.pendingResponseBytes == 0 && load.openConnections == 0 })
        await server.shutdown()
    }

    private static func decode(_ result: Subprocess.Result) throws -> [String: Any] {
        guard let object = try? JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any] else {
            throw Subprocess.PeerFailed(description: "peer exited \(result.status): \(result.errorOutput.suffix(1500))")
        }
        return object
    }
}

/// Polls `condition` every 50 ms for up to `timeout`. (TestSupport has the general one; this target stays free of it
/// so the sanitizer package, .ci/asan, builds only the core and its tests.)
private func eventually(timeout: Duration = .seconds(10), _ condition: @Sendable () -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try await Task.sleep(for: .milliseconds(50))
    }
    return condition()
}
