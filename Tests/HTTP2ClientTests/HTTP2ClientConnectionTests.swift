import HTTP2Client
import NIOCore
import TestSupport
import Testing

@Suite("HTTP2Client connection lifecycle")
struct HTTP2ClientConnectionTests {
    @Test(
        "after the server restarts on the same port, the next request succeeds on a new connection",
        arguments: ServerMode.http2Modes
    )
    func serverRestart(mode: ServerMode) async throws {
        let router = makeTestRouter()
        let certificates = try TestCertificates.make()
        defer { certificates.remove() }
        let (client, port) = try await withTestServer(mode, certificates: certificates, router: router) { server in
            let client = try server.makeClient()
            let response = try await client.execute(HTTP2Request(path: "/echo"))
            #expect(response.status == 200)
            return (client, server.port)
        }
        // The first server shut down gracefully (GOAWAY, then close) when the closure returned.
        try await withTestServer(mode, port: port, certificates: certificates, router: router) { server in
            let response = try await client.execute(
                HTTP2Request(method: .POST, path: "/echo", body: ByteBuffer(string: "again"))
            )
            #expect(String(buffer: response.body) == "again")
            #expect(server.connections.count == 1)
        }
        await client.shutdown()
    }

    @Test("a GOAWAY from a live server makes the next request open a new connection", arguments: ServerMode.http2Modes)
    func goAwayFromIdleServer(mode: ServerMode) async throws {
        // Long enough for the first request to arrive in time on a busy machine; only the first connection idles
        // out, so the second request cannot race an idle close (that race has its own tests).
        try await withTestServer(mode, firstConnectionIdleTimeout: .seconds(2), router: makeTestRouter()) { server in
            let client = try server.makeClient()
            _ = try await client.execute(HTTP2Request(path: "/echo"))
            // The server sends GOAWAY once the connection idles; the connection then closes.
            #expect(await server.connections.closed.wait())

            let response = try await client.execute(
                HTTP2Request(method: .POST, path: "/echo", body: ByteBuffer(string: "after goaway"))
            )
            await client.shutdown()
            #expect(String(buffer: response.body) == "after goaway")
            #expect(server.connections.count == 2)
        }
    }

    @Test(
        "after a GOAWAY on a connection the server keeps open, the next request uses a new connection",
        arguments: ServerMode.http2Modes
    )
    func goAwayOnOpenConnection(mode: ServerMode) async throws {
        try await withTestServer(mode, router: makeTestRouter()) { server in
            let client = try server.makeClient()
            _ = try await client.execute(HTTP2Request(path: "/echo"))
            // The server announces it processed stream 1 and will take no more, but leaves the connection open.
            try await server.connections.sendGoAway(lastStreamID: 1)
            // An idle client drops a connection that received GOAWAY.
            #expect(await server.connections.closed.wait())

            let response = try await client.execute(HTTP2Request(path: "/echo"))
            await client.shutdown()
            #expect(response.status == 200)
            #expect(server.connections.count == 2)
        }
    }

    @Test("a request in flight during a graceful server shutdown still completes", arguments: ServerMode.http2Modes)
    func inFlightRequestSurvivesGracefulShutdown(mode: ServerMode) async throws {
        let probes = Probes()
        try await withTestServer(mode, router: makeTestRouter(probes: probes)) { server in
            let client = try server.makeClient()
            async let response = client.execute(HTTP2Request(path: "/wait"))
            #expect(await probes.entered.wait())
            await server.stop()
            probes.release.fire()
            let body = try await String(buffer: response.body)
            await client.shutdown()
            #expect(body == "released")
        }
    }

    @Test("a request that was sent and then lost its connection fails with connectionClosed and is not resent")
    func sentRequestIsNotRetried() async throws {
        let probes = Probes()
        try await withTestServer(.cleartext, router: makeTestRouter(probes: probes)) { server in
            let client = try server.makeClient()
            async let outcome = capture { try await client.execute(HTTP2Request(path: "/wait")) }
            #expect(await probes.entered.wait())
            await server.connections.closeAll()
            let result = await outcome
            probes.release.fire()

            #expect(throws: HTTP2ClientError.connectionClosed) { try result.get() }
            #expect(probes.waitCallCount == 1)
            // The client recovers on a new connection.
            let response = try await client.execute(HTTP2Request(path: "/echo"))
            await client.shutdown()
            #expect(response.status == 200)
            #expect(server.connections.count == 2)
        }
    }

    @Test("a request the peer refused with GOAWAY before processing it is retried once on a new connection")
    func unprocessedRequestIsRetried() async throws {
        // Only the first connection plays the departing server.
        let goAwayOnFirstConnection: @Sendable (any Channel, Int) throws -> Void = { channel, index in
            if index == 0 {
                try channel.pipeline.syncOperations.addHandler(GoAwayOnFirstRequestHandler())
            }
        }
        try await withTestServer(.cleartext, prepareConnection: goAwayOnFirstConnection, router: makeTestRouter()) {
            server in
            let client = try server.makeClient()
            let response = try await client.execute(
                HTTP2Request(method: .POST, path: "/echo", body: ByteBuffer(string: "retried"))
            )
            await client.shutdown()
            #expect(String(buffer: response.body) == "retried")
            #expect(server.connections.count == 2)
        }
    }

    @Test("a request answered with GOAWAY(last stream 0) and a closed connection is retried once on a new one")
    func unprocessedRequestIsRetriedAfterClose() async throws {
        // The production race: a server closes an idle connection just as a request goes out on it.
        let goAwayAndClose: @Sendable (any Channel, Int) throws -> Void = { channel, index in
            if index == 0 {
                try channel.pipeline.syncOperations.addHandler(GoAwayOnFirstRequestHandler(closesConnection: true))
            }
        }
        try await withTestServer(.cleartext, prepareConnection: goAwayAndClose, router: makeTestRouter()) { server in
            let client = try server.makeClient()
            let response = try await client.execute(
                HTTP2Request(method: .POST, path: "/echo", body: ByteBuffer(string: "retried"))
            )
            await client.shutdown()
            #expect(String(buffer: response.body) == "retried")
            #expect(server.connections.count == 2)
        }
    }

    @Test("a request sent before a GOAWAY that covers it is not resent when the connection then closes")
    func coveredRequestIsNotRetried() async throws {
        // GOAWAY(last stream 2^31-1) says "streams sent so far may be processed": losing the connection after it
        // leaves the request's fate unknown, so it must not be sent twice.
        let goAwayAndClose: @Sendable (any Channel, Int) throws -> Void = { channel, index in
            if index == 0 {
                let handler = GoAwayOnFirstRequestHandler(lastStreamID: UInt32(Int32.max), closesConnection: true)
                try channel.pipeline.syncOperations.addHandler(handler)
            }
        }
        try await withTestServer(.cleartext, prepareConnection: goAwayAndClose, router: makeTestRouter()) { server in
            let client = try server.makeClient()
            let result = await capture {
                try await client.execute(HTTP2Request(method: .POST, path: "/echo", body: ByteBuffer(string: "once")))
            }
            #expect(throws: HTTP2ClientError.connectionClosed) { try result.get() }
            #expect(server.connections.count == 1)
            // The client recovers on a new connection.
            let response = try await client.execute(HTTP2Request(path: "/echo"))
            await client.shutdown()
            #expect(response.status == 200)
            #expect(server.connections.count == 2)
        }
    }

    @Test("connecting to a port nobody listens on fails promptly with connectFailed")
    func connectionRefused() async throws {
        let port = try await withTestServer(.cleartext, router: makeTestRouter()) { $0.port }
        let client = try HTTP2Client(
            baseURL: "http://127.0.0.1:\(port)",
            configuration: .init(connectTimeout: .seconds(30), requestTimeout: .seconds(60)),
            logger: .quiet
        )
        let clock = ContinuousClock()
        let start = clock.now
        let error = await #expect(throws: HTTP2ClientError.self) {
            _ = try await client.execute(HTTP2Request(path: "/echo"))
        }
        // Refusal must be reported as it happens, not when some timeout runs out.
        #expect(clock.now - start < .seconds(10))
        #expect(error == .connectFailed)
        #expect(error?.description.contains("127.0.0.1:\(port)") == true)
        await client.shutdown()
    }
}
