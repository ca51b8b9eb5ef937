import Foundation
import HTTP2Core
import Testing

/// The handler API: answers now, after a suspension, streamed, dropped on reset; limits; graceful shutdown.
@Suite(
    "HTTP/2 core responses",
    .enabled(
        if: PeerTools.hasPython, "requires python3-h2 and python3-httpx: apt-get install python3-h2 python3-httpx"),
    .enabled(if: PeerTools.hasCurl, "requires curl: apt-get install curl")
)
struct ResponseTests {
    @Test("an async handler answers after suspending")
    func asyncAnswer() async throws {
        let server = try await TestServer()
        let result = try await Subprocess.curl(["--http2-prior-knowledge", "\(server.url)/async"])
        await server.shutdown()
        #expect(result.status == 200)
        #expect(result.body == "answered after a suspension")
    }

    @Test(
        "a stream reset before the async answer cancels its task, runs its close callback, and the connection goes on")
    func resetBeforeAsyncAnswer() async throws {
        let server = try await TestServer()
        async let peer = Subprocess.peer("reset", port: server.port)
        #expect(await server.holdArrived.wait())
        #expect(await server.holdCancelled.wait())
        #expect(await server.holdClosed.wait())
        let result = try await peer
        await server.shutdown()
        #expect(result["held_answered"] as? Bool == false)
        #expect(result["after_status"] as? Int == 200)
    }

    @Test("a streaming response arrives in chunks, each write's future succeeding, then ends")
    func streamingResponse() async throws {
        let server = try await TestServer()
        let result = try await Subprocess.curl([
            "--http2-prior-knowledge", "-N", "\(server.url)/events",
        ])
        await server.shutdown()
        #expect(result.exit == 0, "the response must end (curl exit 28: it did not)")
        #expect(result.status == 200)
        #expect(result.body == "event 0\nevent 1\nevent 2\n")
        #expect(server.eventWrites.withLock { $0 } == [true, true, true])
    }

    @Test("a body over the limit gets 413, whether declared by content-length or only sent")
    func bodyLimit() async throws {
        var limits = HTTP2Limits()
        limits.maxBodyBytes = 1000
        let server = try await TestServer(limits: limits)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("h2core-body-\(UUID())")
        try Data(repeating: 0x61, count: 5000).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let declared = try await Subprocess.curl([
            "--http2-prior-knowledge", "--data-binary", "@\(file.path)", "\(server.url)/echo",
        ])
        let undeclared = try await Subprocess.curl([
            "--http2-prior-knowledge", "-H", "transfer-encoding: chunked", "--data-binary", "@\(file.path)",
            "\(server.url)/echo",
        ])
        let small = try await Subprocess.curl([
            "--http2-prior-knowledge", "--data-binary", "0123456789", "\(server.url)/echo",
        ])
        await server.shutdown()
        #expect(declared.status == 413)
        #expect(declared.body == "request body exceeds the limit of 1000 bytes\n")
        #expect(undeclared.status == 413)
        #expect(small.status == 200 && small.body == "0123456789")
    }

    @Test("graceful shutdown: the client sees GOAWAY naming its stream, and the in-flight answer still arrives")
    func gracefulShutdown() async throws {
        let server = try await TestServer()
        async let peer = Subprocess.peer("goaway", port: server.port)
        #expect(await server.slowArrived.wait())
        await server.shutdown()
        let result = try await peer
        #expect(result["goaway_last_stream"] as? Int == 1)
        #expect(result["goaway"] as? Int == 0)  // NO_ERROR
        #expect((result["statuses"] as? [String: Int])?["1"] == 200)
        #expect((result["bodies"] as? [String: String])?["1"] == "slow done")
        #expect(result["closed"] as? Bool == true)
        let after = try await Subprocess.curl(["--http2-prior-knowledge", "\(server.url)/hello"])
        #expect(after.status == 0)  // no longer listening
    }

    @Test("a connection with an open stream is never idle; once its last stream ends, its idle timeout starts")
    func idleAfterLastStream() async throws {
        var limits = HTTP2Limits()
        limits.idleTimeout = .seconds(1)
        limits.handshakeTimeout = .seconds(1)
        let server = try await TestServer(limits: limits)
        let result = try await Subprocess.peer("held-then-idle", port: server.port)
        await server.shutdown()
        #expect(result["goaway_while_held"] as? Bool == false, "2.5 s with a stream open: no GOAWAY")
        #expect(result["goaway_after_reset"] as? Bool == true, "no stream left: GOAWAY after the idle timeout")
        let after = try #require(result["seconds_after_reset"] as? Double)
        #expect(after >= 0.8, "the idle time counts from the stream's end, not from the connection's start")
    }

    @Test("an idle connection is sent GOAWAY and closed after the idle timeout")
    func idleTimeout() async throws {
        var limits = HTTP2Limits()
        limits.idleTimeout = .seconds(1)
        let server = try await TestServer(limits: limits)
        let result = try await Subprocess.peer("idle", port: server.port)
        await server.shutdown()
        #expect(result["goaway"] as? Int == 0)
        #expect(result["closed"] as? Bool == true)
    }
}
