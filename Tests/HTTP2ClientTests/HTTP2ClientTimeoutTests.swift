import HTTP2Client
import NIOCore
import Testing

@Suite("HTTP2Client timeouts and cancellation")
struct HTTP2ClientTimeoutTests {
    @Test(
        "a handler slower than the timeout gives a timeout error, and the client keeps working",
        arguments: ServerMode.http2Modes
    )
    func timeout(mode: ServerMode) async throws {
        let probes = Probes()
        try await withTestServer(mode, router: makeTestRouter(probes: probes)) { server in
            let client = try server.makeClient()
            // Connect first, so the short timeout can only run out on the stream.
            _ = try await client.execute(HTTP2Request(path: "/echo"))
            // The handler holds the response until `release` fires, which happens only after the client gave up.
            let result = await capture {
                try await client.execute(HTTP2Request(path: "/wait", timeout: .milliseconds(300)))
            }
            probes.release.fire()
            #expect(throws: HTTP2ClientError.timeout) { try result.get() }

            let response = try await client.execute(HTTP2Request(path: "/echo"))
            await client.shutdown()
            #expect(response.status == 200)
            // Only the stream was reset; the connection survived.
            #expect(server.connections.count == 1)
        }
    }

    @Test("the configured request timeout applies when the request sets none")
    func configuredTimeout() async throws {
        let probes = Probes()
        try await withTestServer(.cleartext, router: makeTestRouter(probes: probes)) { server in
            let client = try server.makeClient(configuration: .init(requestTimeout: .milliseconds(300)))
            let result = await capture { try await client.execute(HTTP2Request(path: "/wait")) }
            probes.release.fire()
            await client.shutdown()
            #expect(throws: HTTP2ClientError.timeout) { try result.get() }
        }
    }

    @Test("cancelling the calling task closes the stream and throws CancellationError")
    func cancellation() async throws {
        let probes = Probes()
        try await withTestServer(.cleartext, router: makeTestRouter(probes: probes)) { server in
            let client = try server.makeClient()
            let call = Task { try await client.execute(HTTP2Request(path: "/wait")) }
            #expect(await probes.entered.wait())
            call.cancel()
            let result = await call.result
            probes.release.fire()
            #expect(throws: CancellationError.self) { try result.get() }

            let response = try await client.execute(HTTP2Request(path: "/echo"))
            await client.shutdown()
            #expect(response.status == 200)
            #expect(server.connections.count == 1)
        }
    }
}
