import Foundation
import HTTP2Core
import NIOCore
import Testing

/// The core's client against servers that break the protocol: each ends in a clear failure, never a crash, a hang or
/// unbounded memory (these tests also run under AddressSanitizer, .ci/asan).
@Suite(
    "HTTP/2 core client against hostile servers",
    .enabled(if: PeerTools.hasPython, "requires python3-h2 and python3-httpx: apt-get install python3-h2 python3-httpx")
)
struct ClientHostilePeerTests {
    /// The hostile server's JSON summary, once it has exited.
    private func summary(of server: PeerServerProcess) async throws -> [String: Any] {
        _ = try await server.waitForExit(seconds: 20)
        let object = try JSONSerialization.jsonObject(with: Data(server.output.utf8))
        return try #require(object as? [String: Any])
    }

    @Test("a server answering the preface with garbage fails the connect with a protocol error")
    func garbage() async throws {
        let server = try await PeerServerProcess.hostile("garbage")
        defer { server.stop() }
        let error = await #expect(throws: HTTP2ClientConnectError.self) {
            _ = try await connectClient(port: server.port)
        }
        #expect(error?.kind == .http2)
        #expect(error?.detail.contains("protocol error") == true)
        #expect(try await summary(of: server)["client_closed"] as? Bool == true)
    }

    @Test(
        "a response header list over the limit fails the stream and resets it",
        arguments: ["big-headers", "hpack-bomb"])
    func oversizedHeaders(mode: String) async throws {
        let server = try await PeerServerProcess.hostile(mode)
        defer { server.stop() }
        let connection = try await connectClient(port: server.port)
        await #expect(throws: HTTP2ClientStreamFailure.headersTooLarge(64 << 10)) {
            _ = try await connection.fetch("/")
        }
        connection.close()
        #expect(try await summary(of: server)["client_resets"] as? [Int] == [1])
    }

    @Test("a stream reset and 10,000 more RST_STREAMs for it fail that request only; the connection serves the next")
    func resetFlood() async throws {
        let server = try await PeerServerProcess.hostile("rst-flood")
        defer { server.stop() }
        let connection = try await connectClient(port: server.port)
        await #expect(throws: HTTP2ClientStreamFailure.reset(8)) { _ = try await connection.fetch("/") }
        let next = try await connection.fetch("/next")
        connection.close()
        #expect(next.status == 200 && String(buffer: next.body) == "connection 0")
        #expect(try await summary(of: server)["requests"] as? Int == 2)
    }
}
