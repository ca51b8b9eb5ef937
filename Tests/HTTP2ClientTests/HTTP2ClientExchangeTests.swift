import HTTP2Client
import NIOCore
import Testing

@Suite("HTTP2Client requests and responses")
struct HTTP2ClientExchangeTests {
    @Test(
        "a request reaches the server with its method, path, authority, headers and body, and the response comes back",
        arguments: ServerMode.http2Modes
    )
    func echo(mode: ServerMode) async throws {
        try await withTestServer(mode, router: makeTestRouter()) { server in
            let client = try server.makeClient()
            let response = try await client.execute(
                HTTP2Request(
                    method: .POST,
                    path: "/echo?q=1",
                    headers: [("X-Test", "hello header")],
                    body: ByteBuffer(string: "hello body")
                )
            )
            await client.shutdown()

            #expect(response.status == 200)
            #expect(String(buffer: response.body) == "hello body")
            #expect(response.header("x-echo-method") == "POST")
            #expect(response.header("X-Echo-Path") == "/echo?q=1")
            #expect(response.header("x-echo-authority") == "127.0.0.1:\(server.port)")
            #expect(response.header("x-echo-header") == "hello header")
            #expect(response.header("no-such-header") == nil)
        }
    }

    @Test("the path prefix of the base URL is put in front of every request path")
    func basePath() async throws {
        try await withTestServer(.cleartext, router: makeTestRouter()) { server in
            let client = try HTTP2Client(baseURL: server.baseURL() + "/prefix/", logger: .quiet)
            let response = try await client.execute(HTTP2Request(method: .GET, path: "/echo?from=prefix"))
            await client.shutdown()
            #expect(response.header("x-echo-path") == "/prefix/echo?from=prefix")
        }
    }

    @Test("50 concurrent first requests share a single connection", arguments: ServerMode.http2Modes)
    func concurrentRequestsShareOneConnection(mode: ServerMode) async throws {
        try await withTestServer(mode, router: makeTestRouter()) { server in
            let client = try server.makeClient()
            let bodies = try await withThrowingTaskGroup(of: (Int, String).self) { group in
                for index in 0..<50 {
                    group.addTask {
                        let response = try await client.execute(
                            HTTP2Request(method: .POST, path: "/echo", body: ByteBuffer(string: "request \(index)"))
                        )
                        return (index, String(buffer: response.body))
                    }
                }
                var bodies: [Int: String] = [:]
                for try await (index, body) in group {
                    bodies[index] = body
                }
                return bodies
            }
            await client.shutdown()

            #expect(bodies.count == 50)
            #expect(bodies.allSatisfy { index, body in body == "request \(index)" })
            #expect(server.connections.count == 1)
        }
    }

    @Test("a buffered response larger than maxResponseBytes fails with responseTooLarge", arguments: [false, true])
    func responseTooLarge(streamedWithoutLength: Bool) async throws {
        try await withTestServer(.cleartext, router: makeTestRouter()) { server in
            let client = try server.makeClient(configuration: .init(maxResponseBytes: 4096))
            let stream = streamedWithoutLength ? "1" : "0"
            await #expect(throws: HTTP2ClientError.responseTooLarge) {
                _ = try await client.execute(HTTP2Request(path: "/big?bytes=65536&stream=\(stream)"))
            }
            // At the limit is fine, and the connection is still usable.
            let response = try await client.execute(HTTP2Request(path: "/big?bytes=4096&stream=\(stream)"))
            await client.shutdown()
            #expect(response.body.readableBytes == 4096)
            #expect(server.connections.count == 1)
        }
    }

    @Test("calls after shutdown fail with shutdown")
    func callsAfterShutdown() async throws {
        try await withTestServer(.cleartext, router: makeTestRouter()) { server in
            let client = try server.makeClient()
            _ = try await client.execute(HTTP2Request(path: "/echo"))
            await client.shutdown()
            await #expect(throws: HTTP2ClientError.shutdown) {
                _ = try await client.execute(HTTP2Request(path: "/echo"))
            }
        }
    }

    @Test("a request path that does not start with a slash is refused")
    func relativePath() async throws {
        let client = try HTTP2Client(baseURL: "http://127.0.0.1:1", logger: .quiet)
        await #expect(throws: HTTP2ClientError.invalidURL) {
            _ = try await client.execute(HTTP2Request(path: "echo"))
        }
        await client.shutdown()
    }
}
