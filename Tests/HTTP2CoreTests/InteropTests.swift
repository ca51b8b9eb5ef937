import DevelopmentPKI
import Foundation
import HTTP2Core
import NIOSSL
import Testing

/// Independent peers speak to the core: curl (h2c, TLS ALPN h2, HTTP/1.1 fallback), Python's `h2` and `httpx`, h2load.
@Suite(
    "HTTP/2 core interop",
    .enabled(
        if: PeerTools.hasPython, "requires python3-h2 and python3-httpx: apt-get install python3-h2 python3-httpx"),
    .enabled(if: PeerTools.hasCurl, "requires curl: apt-get install curl"),
    .enabled(if: PeerTools.hasH2load, "requires h2load: apt-get install nghttp2-client")
)
struct InteropTests {
    @Test("curl with prior knowledge gets the handler's answer over cleartext HTTP/2, body and headers intact")
    func curlPriorKnowledge() async throws {
        let server = try await TestServer()
        let result = try await Subprocess.curl([
            "--http2-prior-knowledge", "-D", "-", "-H", "content-type: application/json", "--data-binary",
            #"{"jsonrpc":"2.0"}"#, "\(server.url)/echo",
        ])
        await server.shutdown()
        #expect(result.status == 200)
        #expect(result.version == "2")
        #expect(result.body.contains("x-method: POST"))
        #expect(result.body.contains("content-type: application/json"))
        #expect(result.body.contains("content-length: 17"))
        #expect(result.body.hasSuffix(#"{"jsonrpc":"2.0"}"#))
    }

    @Test("a 204 carries no body and no content-length")
    func noContent() async throws {
        let server = try await TestServer()
        let result = try await Subprocess.curl(["--http2-prior-knowledge", "-D", "-", "\(server.url)/empty"])
        await server.shutdown()
        #expect(result.status == 204)
        #expect(!result.body.contains("content-length"))
    }

    @Test("over TLS, ALPN picks h2, and a client offering only HTTP/1.1 gets the same handler")
    func tlsAndHTTP1Fallback() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("h2core-pki-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try await TestServer(tls: try Self.serverTLS(in: directory))
        let base = "https://localhost:\(server.port)"
        let trust = ["--cacert", directory + "/ca.pem"]
        let h2 = try await Subprocess.curl(trust + ["--http2", "\(base)/hello"])
        let h1 = try await Subprocess.curl(trust + ["--http1.1", "\(base)/hello"])
        let h1Async = try await Subprocess.curl(trust + ["--http1.1", "\(base)/async"])
        let h1Stream = try await Subprocess.curl(trust + ["--http1.1", "\(base)/events"])
        await server.shutdown()
        #expect(h2.status == 200 && h2.version == "2" && h2.body == "hello over HTTP/2")
        #expect(h1.status == 200 && h1.version == "1.1" && h1.body == "hello over HTTP/1")
        #expect(h1Async.body == "answered after a suspension")
        #expect(h1Stream.exit == 0 && h1Stream.body == "event 0\nevent 1\nevent 2\n")
    }

    @Test("a cleartext port answers HTTP/1.1 (what browsers speak) and HTTP/2 prior knowledge, by the first bytes")
    func cleartextBothProtocols() async throws {
        let server = try await TestServer()
        let h2 = try await Subprocess.curl(["--http2-prior-knowledge", "\(server.url)/hello"])
        let h1 = try await Subprocess.curl(["--http1.1", "\(server.url)/hello"])
        let h1Post = try await Subprocess.curl([
            "--http1.1", "-D", "-", "-H", "content-type: application/json", "--data-binary", #"{"jsonrpc":"2.0"}"#,
            "\(server.url)/echo",
        ])
        let h1Stream = try await Subprocess.curl(["--http1.1", "\(server.url)/events"])
        await server.shutdown()
        #expect(h2.status == 200 && h2.version == "2" && h2.body == "hello over HTTP/2")
        #expect(h1.status == 200 && h1.version == "1.1" && h1.body == "hello over HTTP/1")
        #expect(h1Post.status == 200 && h1Post.body.hasSuffix(#"{"jsonrpc":"2.0"}"#))
        #expect(h1Stream.exit == 0 && h1Stream.body == "event 0\nevent 1\nevent 2\n")
    }

    @Test("a cleartext client that sends nothing, or one byte and stops, is disconnected after the handshake timeout")
    func cleartextUndecidedTimeout() async throws {
        var limits = HTTP2Limits()
        limits.handshakeTimeout = .milliseconds(500)
        let server = try await TestServer(limits: limits)
        let silent = try await Subprocess.peer("silent", port: server.port)
        let oneByte = try await Subprocess.peer("one-byte", port: server.port)
        await server.shutdown()
        #expect(silent["closed"] as? Bool == true)
        #expect(oneByte["closed"] as? Bool == true)
    }

    @Test("an HTTP/1.1 head dripped slower than the request timeout is cut off; a pause between requests is not")
    func http1SlowHead() async throws {
        var limits = HTTP2Limits()
        limits.requestTimeout = .seconds(1)
        let server = try await TestServer(limits: limits)
        let slow = try await Subprocess.peer("http1-slow-head", port: server.port)
        let paused = try await Subprocess.peer("http1-keepalive-pause", port: server.port)
        await server.shutdown()
        #expect(slow["closed"] as? Bool == true, "\(slow)")
        #expect((slow["seconds"] as? Double ?? 99) < 4, "\(slow)")
        #expect(paused["answers"] as? [String] == ["HTTP/1.1 200 OK", "HTTP/1.1 200 OK"], "\(paused)")
    }

    @Test(
        "in cleartext HTTP/1.1 mode (a scrape port) curl gets the same handler, and HTTP/2 prior knowledge is refused")
    func cleartextHTTP1() async throws {
        let server = try await TestServer(cleartextHTTP1: true)
        let h1 = try await Subprocess.curl(["--http1.1", "\(server.url)/hello"])
        let h1Async = try await Subprocess.curl(["--http1.1", "\(server.url)/async"])
        let h2 = try await Subprocess.curl(["--http2-prior-knowledge", "\(server.url)/hello"])
        await server.shutdown()
        #expect(h1.status == 200 && h1.version == "1.1" && h1.body == "hello over HTTP/1")
        #expect(h1Async.body == "answered after a suspension")
        #expect(h2.exit != 0 || h2.status != 200)
    }

    @Test("a TLS client that never finishes its handshake is disconnected after the handshake timeout")
    func tlsHandshakeTimeout() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("h2core-pki-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var limits = HTTP2Limits()
        limits.handshakeTimeout = .milliseconds(500)
        let server = try await TestServer(tls: try Self.serverTLS(in: directory), limits: limits)
        let result = try await Subprocess.peer("silent", port: server.port)
        await server.shutdown()
        #expect(result["closed"] as? Bool == true)
    }

    @Test("Python h2: 20 concurrent streams each get a 300 kB response, larger than the initial window")
    func concurrentStreamsAndFlowControl() async throws {
        let server = try await TestServer()
        let result = try await Subprocess.peer("concurrent", port: server.port, ["20", "300000"])
        await server.shutdown()
        #expect(result["completed"] as? Int == 20)
        #expect(result["sizes"] as? [Int] == [300_000])
        #expect(result["statuses"] as? [Int] == [200])
    }

    @Test("Python httpx: TLS and cleartext h2, a body past the window, a stream, requests after it shrank the table")
    func httpx() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("h2core-pki-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let tlsServer = try await TestServer(tls: try Self.serverTLS(in: directory))
        let overTLS = try await Subprocess.peer("httpx", port: tlsServer.port, ["https", directory + "/ca.pem"])
        await tlsServer.shutdown()
        let server = try await TestServer()
        let cleartext = try await Subprocess.peer("httpx", port: server.port, ["http"])
        await server.shutdown()
        for result in [overTLS, cleartext] {
            #expect(result["versions"] as? [String] == ["HTTP/2"])
            #expect(result["statuses"] as? [Int] == [200])
            #expect(result["hello"] as? String == "hello over HTTP/2")
            #expect(result["echo_tail"] as? String == #"{"jsonrpc":"2.0"}"#)
            #expect(result["big"] as? Int == 300_000)
            #expect(result["events"] as? String == "event 0\nevent 1\nevent 2\n")
            #expect(result["after_events"] as? [String] == (0..<10).map { "x-trace/\($0)" })
        }
    }

    @Test("h2load: 2,000 POSTs over 4 connections, 32 streams each, none failed")
    func h2load() async throws {
        let server = try await TestServer()
        let body = FileManager.default.temporaryDirectory.appendingPathComponent("h2load-\(UUID()).json")
        try Data(#"{"jsonrpc":"2.0","method":"store.get","id":1}"#.utf8).write(to: body)
        defer { try? FileManager.default.removeItem(at: body) }
        let result = try await Subprocess.run(
            "/usr/bin/h2load", ["-n", "2000", "-c", "4", "-m", "32", "-d", body.path, "\(server.url)/echo"])
        await server.shutdown()
        #expect(result.status == 0)
        #expect(result.output.contains("2000 succeeded, 0 failed, 0 errored"))
    }

    /// A development CA (`ca.pem`) and a server certificate for the loopback names, written into `directory`.
    static func serverTLS(in directory: String) throws -> TLSConfiguration {
        let pki = DevelopmentCertificates(certificatesDirectory: directory, caKeyDirectory: directory + "/ca-key")
        _ = try pki.ensure([.init(name: "server", hosts: SubjectHost.loopback)])
        return TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(pki.certificatePath("server")).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: pki.keyPath("server"), format: .pem)))
    }
}
