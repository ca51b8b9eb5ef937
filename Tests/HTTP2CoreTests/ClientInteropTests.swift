import DevelopmentPKI
import Foundation
import HTTP2Core
import NIOCore
import NIOSSL
import Testing

/// The core's client against an independent server, nghttpd (Debian nghttp2-server): cleartext and TLS, a peer that
/// allows one stream at a time, and GOAWAY (from a Python server) followed by a new connection.
@Suite(
    "HTTP/2 core client interop",
    .enabled(if: PeerTools.hasNghttpd, "requires nghttpd: apt-get install nghttp2-server"),
    .enabled(if: PeerTools.hasPython, "requires python3-h2 and python3-httpx: apt-get install python3-h2 python3-httpx")
)
struct ClientInteropTests {
    /// A document root with a small file and one larger than every flow-control window.
    private static func documentRoot() throws -> (path: String, large: Data) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("h2client-docs-\(UUID())").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try Data("hello from nghttpd\n".utf8).write(to: URL(fileURLWithPath: path + "/hello.txt"))
        let large = Data((0..<1_500_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try large.write(to: URL(fileURLWithPath: path + "/large.bin"))
        return (path, large)
    }

    @Test("cleartext: nghttpd's files come back intact, buffered and streamed past every window")
    func cleartext() async throws {
        let documents = try Self.documentRoot()
        defer { try? FileManager.default.removeItem(atPath: documents.path) }
        let server = try await PeerServerProcess.nghttpd(documentRoot: documents.path)
        defer { server.stop() }
        let connection = try await connectClient(port: server.port)
        let hello = try await connection.fetch("/hello.txt")
        let missing = try await connection.fetch("/missing.txt")
        let streamed = try await connection.fetch("/large.bin", bodyLimit: nil)
        let posted = try await connection.fetch("/hello.txt", method: "POST", body: ByteBuffer(string: "ignored"))
        connection.close()
        #expect(hello.status == 200 && String(buffer: hello.body) == "hello from nghttpd\n")
        #expect(missing.status == 404)
        #expect(streamed.status == 200 && Data(streamed.body.readableBytesView) == documents.large)
        #expect(posted.status == 200)
    }

    @Test("TLS with ALPN h2: nghttpd's certificate is verified against the development CA")
    func tls() async throws {
        let documents = try Self.documentRoot()
        defer { try? FileManager.default.removeItem(atPath: documents.path) }
        let pkiDirectory = documents.path + "/pki"
        let pki = DevelopmentCertificates(certificatesDirectory: pkiDirectory, caKeyDirectory: pkiDirectory + "/ca-key")
        _ = try pki.ensure([.init(name: "server", hosts: SubjectHost.loopback)])
        let server = try await PeerServerProcess.nghttpd(
            documentRoot: documents.path, tls: (pki.certificatePath("server"), pki.keyPath("server")))
        defer { server.stop() }
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.applicationProtocols = ["h2"]
        configuration.trustRoots = .file(pkiDirectory + "/ca.pem")
        let context = try NIOSSLContext(configuration: configuration)
        let connection = try await connectClient(
            port: server.port, tls: HTTP2ClientConnection.TLS(context: context, serverHostname: "localhost"))
        let hello = try await connection.fetch("/hello.txt", authority: "localhost", scheme: "https")
        let large = try await connection.fetch("/large.bin", authority: "localhost", scheme: "https", bodyLimit: nil)
        connection.close()
        #expect(hello.status == 200 && String(buffer: hello.body) == "hello from nghttpd\n")
        #expect(Data(large.body.readableBytesView) == documents.large)

        // The same server, not trusted: the handshake fails and says so.
        let untrusted = try NIOSSLContext(configuration: .makeClientConfiguration())
        let error = await #expect(throws: HTTP2ClientConnectError.self) {
            _ = try await connectClient(
                port: server.port, tls: HTTP2ClientConnection.TLS(context: untrusted, serverHostname: "localhost"))
        }
        #expect(error?.kind == .tls)
    }

    @Test("a peer allowing one stream at a time gets 20 concurrent requests one after another, none refused")
    func oneStreamAtATime() async throws {
        let documents = try Self.documentRoot()
        defer { try? FileManager.default.removeItem(atPath: documents.path) }
        let server = try await PeerServerProcess.nghttpd(documentRoot: documents.path, extra: ["-m", "1"])
        defer { server.stop() }
        let connection = try await connectClient(port: server.port)
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<20 {
                group.addTask { try await connection.fetch("/hello.txt").status }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        connection.close()
        #expect(statuses == Array(repeating: 200, count: 20))
    }

    @Test("after GOAWAY a request is not sent on that connection, which then closes; a new connection serves it")
    func goAwayThenReconnect() async throws {
        let server = try await PeerServerProcess.hostile("goaway")
        defer { server.stop() }
        let first = try await connectClient(port: server.port)
        let answered = try await first.fetch("/first")
        #expect(answered.status == 200 && String(buffer: answered.body) == "first")
        // The GOAWAY came right behind the response: the next request on that connection never reaches the peer
        // (or is refused as above the GOAWAY's last stream), so it is safe to send again elsewhere.
        let refused = await #expect(throws: HTTP2ClientStreamFailure.self) { _ = try await first.fetch("/second") }
        #expect(refused?.requestWasNotProcessed == true)
        // With GOAWAY in and no stream left, the session is done and the connection closes by itself.
        try await first.channel.closeFuture.get()
        let second = try await connectClient(port: server.port)
        let retried = try await second.fetch("/second")
        second.close()
        #expect(retried.status == 200 && String(buffer: retried.body) == "connection 1")
    }
}
