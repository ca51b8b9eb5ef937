import Foundation
import HTTP2Core
import NIOCore
import RPCServer
import TestSupport
import Testing

@Suite("The RPC server on the HTTP/2 core, as curl sees it")
struct CoreServerTests {
    static let h2c = ["--http2-prior-knowledge", "-H", "content-type: application/json"]

    static func call(_ method: String, _ params: String = "[]", id: Int = 1) -> String {
        #"{"jsonrpc":"2.0","method":"\#(method)","params":\#(params),"id":\#(id)}"#
    }

    @Test("a call over cleartext HTTP/2 with prior knowledge gets its JSON-RPC answer")
    func cleartextCall() async throws {
        try await CoreServerHarness.with { server in
            let result = try await Curl.run(
                Self.h2c + ["-d", Self.call("test.sum", "[1,2,3]", id: 7), "\(server.url)/rpc"])
            #expect(result.status == 200)
            #expect(result.httpVersion == "2")
            #expect(result.body == #"{"id":7,"jsonrpc":"2.0","result":6}"#)
        }
    }

    @Test("a call with an immediate answer is answered on the event loop with no task; one that suspends runs in one")
    func immediateAnswerHasNoTask() async throws {
        try await CoreServerHarness.with { server in
            let url = "\(server.url)/rpc"
            let immediate = try await Curl.run(Self.h2c + ["-d", Self.call("test.intask", "[1]", id: 1), url])
            #expect(immediate.body == #"{"id":1,"jsonrpc":"2.0","result":false}"#)
            let suspended = try await Curl.run(Self.h2c + ["-d", Self.call("test.intask", "[0]", id: 2), url])
            #expect(suspended.body == #"{"id":2,"jsonrpc":"2.0","result":true}"#)
            // A batch runs its calls on the async path, in order.
            let batch = "[" + Self.call("test.intask", "[1]", id: 3) + "," + Self.call("test.sum", "[1,1]", id: 4) + "]"
            let answers = try await Curl.run(Self.h2c + ["-d", batch, url])
            #expect(answers.body == #"[{"id":3,"jsonrpc":"2.0","result":true},{"id":4,"jsonrpc":"2.0","result":2}]"#)
        }
    }

    @Test("what a handler logs carries its request's own request.id, on the event loop and in a task")
    func requestIDInLogs() async throws {
        let log = RecordedLog()
        try await CoreServerHarness.with(logger: log.logger()) { server in
            let url = "\(server.url)/rpc"
            for (id, param) in [(1, 1), (2, 0), (3, 1)] {
                let answer = try await Curl.run(Self.h2c + ["-d", Self.call("test.intask", "[\(param)]", id: id), url])
                #expect(answer.status == 200)
            }
        }
        let ids = log.all.filter { $0.message == "test.intask" }.map { $0.metadata["request.id"]?.description }
        #expect(ids.count == 3)
        #expect(ids.allSatisfy { $0.flatMap(UInt64.init) != nil }, "\(ids)")
        #expect(Set(ids).count == 3, "\(ids)")
    }

    @Test("an oversized body gets 413 with a JSON-RPC error, a wrong content type 415, an all-notification batch 204")
    func limits() async throws {
        var configuration = RPCServerConfiguration(port: 0)
        configuration.maxBodyBytes = 1024
        try await CoreServerHarness.with(configuration: configuration) { server in
            let url = "\(server.url)/rpc"
            let big = Data(
                Self.call("test.sum", "[" + Array(repeating: "1", count: 2000).joined(separator: ",") + "]").utf8)
            let tooLarge = try await Curl.run(Self.h2c + [url], body: big)
            #expect(tooLarge.status == 413)
            #expect(tooLarge.body.contains("-32600"))
            #expect(tooLarge.body.contains("exceeds the limit of 1024 bytes"))
            let wrongType = try await Curl.run([
                "--http2-prior-knowledge", "-H", "content-type: text/plain", "-d", Self.call("test.sum"), url,
            ])
            #expect(wrongType.status == 415)
            #expect(wrongType.body.contains("Content-Type must be application/json"))
            for (type, status) in [
                ("Application/JSON; charset=utf-8", 200), ("APPLICATION/JSON", 200), ("application/jso", 415),
                ("application/xml", 415), ("applicationjson", 415), ("text/plain; x=application/json", 415),
                ("application/json-seq", 415), ("application/jsonx", 415), ("application/json ;charset=utf-8", 200),
            ] {
                let answer = try await Curl.run(
                    ["--http2-prior-knowledge", "-H", "content-type: \(type)", "-d", Self.call("test.sum"), url])
                #expect(answer.status == status, "content-type '\(type)'")
            }
            let notifications =
                #"[{"jsonrpc":"2.0","method":"test.sum","params":[1]},{"jsonrpc":"2.0","method":"nope"}]"#
            let empty = try await Curl.run(Self.h2c + ["-d", notifications, url])
            #expect(empty.status == 204)
            #expect(empty.body.isEmpty)
            // The connection-level limits leave the next request on the port unharmed.
            let after = try await Curl.run(Self.h2c + ["-d", Self.call("test.sum", "[2,2]"), url])
            #expect(after.body.contains(#""result":4"#))
        }
    }

    @Test("the bearer token, the device proof and the peer's address reach the handler")
    func requestContext() async throws {
        try await CoreServerHarness.with { server in
            let result = try await Curl.run(
                Self.h2c + [
                    "--interface", "127.0.0.2", "-H", "authorization: Bearer abc.def", "-H",
                    "securepush-device-proof: proof-1", "-d", Self.call("test.whoami"), "\(server.url)/rpc",
                ])
            #expect(result.body.contains(#""bearer":"abc.def""#))
            #expect(result.body.contains(#""deviceProof":"proof-1""#))
            #expect(result.body.contains(#""clientAddress":"127.0.0.2""#))
            let anonymous = try await Curl.run(
                Self.h2c + ["-H", "authorization: Basic abc", "-d", Self.call("test.whoami"), "\(server.url)/rpc"])
            #expect(!anonymous.body.contains("bearer"))
        }
    }

    @Test("forwarding headers name the client only when the peer is a trusted proxy")
    func trustedProxies() async throws {
        var configuration = RPCServerConfiguration(port: 0)
        configuration.trustedProxies = [try #require(IPNetwork("127.0.0.1/32"))]
        try await CoreServerHarness.with(configuration: configuration) { server in
            let forwarded = ["-H", "x-forwarded-for: 203.0.113.7", "-d", Self.call("test.whoami"), "\(server.url)/rpc"]
            let viaProxy = try await Curl.run(Self.h2c + ["--interface", "127.0.0.1"] + forwarded)
            #expect(viaProxy.body.contains(#""clientAddress":"203.0.113.7""#))
            let direct = try await Curl.run(Self.h2c + ["--interface", "127.0.0.2"] + forwarded)
            #expect(direct.body.contains(#""clientAddress":"127.0.0.2""#))
        }
    }

    @Test("GET /health is 200 when every check is ok, 503 naming the failing check otherwise")
    func health() async throws {
        try await CoreServerHarness.with { server in
            let result = try await Curl.run(["--http2-prior-knowledge", "\(server.url)/health"])
            #expect(result.status == 200)
            #expect(result.body.contains(#""service":"test-service""#))
            #expect(result.body.contains(#""status":"ok""#))
        }
        let unhealthy: @Sendable () async -> [String: String] = { ["database": "unreachable"] }
        try await CoreServerHarness.with(health: unhealthy) { server in
            let result = try await Curl.run(["--http2-prior-knowledge", "\(server.url)/health"])
            #expect(result.status == 503)
            #expect(result.body.contains(#""database":"unreachable""#))
            #expect(result.body.contains(#""status":"unavailable""#))
        }
    }

    @Test(
        "GET /metrics serves the RPC counters on the service port; without a registry it is 404, like any unknown path")
    func metrics() async throws {
        try await CoreServerHarness.with(metrics: .prometheus()) { server in
            _ = try await Curl.run(Self.h2c + ["-d", Self.call("test.sum", "[1]"), "\(server.url)/rpc"])
            let result = try await Curl.run(["--http2-prior-knowledge", "\(server.url)/metrics"])
            #expect(result.status == 200)
            #expect(
                result.body.contains(
                    #"securepush_rpc_requests_total{service="test-service",method="test.sum",code="ok"} 1"#))
            #expect(result.body.contains("securepush_rpc_request_bytes_total"))
        }
        try await CoreServerHarness.with { server in
            for path in ["/metrics", "/nowhere", "/rpc"] {
                let result = try await Curl.run(["--http2-prior-knowledge", "\(server.url)\(path)"])
                #expect(result.status == 404, "GET \(path)")
            }
        }
    }

    @Test("with TLS the server negotiates h2 by ALPN and answers HTTP/1.1 clients the same")
    func tls() async throws {
        let certificates = try TestCertificates.make()
        defer { certificates.remove() }
        var configuration = RPCServerConfiguration(port: 0)
        configuration.tls = .init(
            certificateChainPath: certificates.serverCertificatePath, privateKeyPath: certificates.serverKeyPath)
        try await CoreServerHarness.with(configuration: configuration) { server in
            let ca = ["--cacert", certificates.caCertificatePath, "-H", "content-type: application/json"]
            for version in ["--http2", "--http1.1"] {
                let result = try await Curl.run(
                    [version] + ca + ["-d", Self.call("test.sum", "[20,22]"), "\(server.url)/rpc"])
                #expect(result.status == 200)
                #expect(result.httpVersion == (version == "--http2" ? "2" : "1.1"))
                #expect(result.body.contains(#""result":42"#))
            }
        }
    }

    @Test("a call with a caller's traceparent gets a server span in that trace")
    func tracing() async throws {
        let tracer = RecordingTracer()
        let traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
        try await CoreServerHarness.with(tracer: tracer) { server in
            _ = try await Curl.run(
                Self.h2c + [
                    "-H", "traceparent: 00-\(traceID)-00f067aa0ba902b7-01", "-d", Self.call("test.sum", "[1]"),
                    "\(server.url)/rpc",
                ])
            let spans = await tracer.spans(where: { $0.name == "test.sum" })
            #expect(spans.count == 1)
            #expect(spans.first?.kind == .server)
            #expect(spans.first?.traceID == traceID)
            #expect(spans.first?.parentSpanID == "00f067aa0ba902b7")
        }
    }

    @Test("a service's own route answers its requests; the built-in routes come first")
    func serviceRoutes() async throws {
        let route: RPCServerRoute = { request, _ in
            guard request.method == "GET", request.path.hasPrefix("/custom") || request.path == "/health" else {
                return nil
            }
            return .response(HTTP2Response(status: 200, body: ByteBuffer(string: "custom")))
        }
        try await CoreServerHarness.with(routes: [route]) { server in
            let custom = try await Curl.run(["--http2-prior-knowledge", "\(server.url)/custom/1"])
            #expect(custom.status == 200)
            #expect(custom.body == "custom")
            let health = try await Curl.run(["--http2-prior-knowledge", "\(server.url)/health"])
            #expect(health.body.contains(#""service":"test-service""#))
        }
    }

    @Test("graceful shutdown lets an in-flight call finish, then the port is closed")
    func gracefulShutdown() async throws {
        let server = try await CoreServerHarness.start(
            configuration: RPCServerConfiguration(port: 0), health: { [:] }, metrics: .disabled, tracer: nil,
            routes: [])
        let slow = Task {
            try await Curl.run(Self.h2c + ["-d", Self.call("test.slow", "[700]"), "\(server.url)/rpc"])
        }
        #expect(await server.slowCallStarted.wait())
        await server.stop()
        let result = try await slow.value
        #expect(result.status == 200)
        #expect(result.body.contains(#""result":700"#))
        let refused = try await Curl.run(["--http2-prior-knowledge", "\(server.url)/health"])
        #expect(refused.status == 0)
    }
}
