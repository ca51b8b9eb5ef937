import HTTP2Client
import NIOCore
import Testing

@Suite("HTTP2Client streamed responses")
struct HTTP2ClientStreamingTests {
    @Test("a streamed response is received chunk by chunk", arguments: ServerMode.http2Modes)
    func chunkByChunk(mode: ServerMode) async throws {
        let probes = Probes()
        try await withTestServer(mode, router: makeTestRouter(probes: probes)) { server in
            let client = try server.makeClient()
            // The server writes each next chunk only after the client confirmed the previous one, so a client
            // that waited for the whole body would receive nothing.
            let chunks = try await client.withStreamingResponse(HTTP2Request(path: "/chunks")) { response in
                #expect(response.status == 200)
                #expect(response.header("Content-Type") == "text/event-stream")
                var chunks: [String] = []
                for try await chunk in response.body {
                    chunks.append(String(buffer: chunk))
                    probes.release.fire()
                }
                return chunks
            }
            await client.shutdown()
            #expect(chunks == ["chunk-1\n", "chunk-2\n", "chunk-3\n"])
        }
    }

    @Test("the stream is closed when the body closure returns early")
    func earlyReturnClosesStream() async throws {
        let probes = Probes()
        try await withTestServer(.cleartext, router: makeTestRouter(probes: probes)) { server in
            let client = try server.makeClient()
            let first = try await client.withStreamingResponse(HTTP2Request(path: "/endless")) { response in
                var iterator = response.body.makeAsyncIterator()
                return try await iterator.next().map { String(buffer: $0) }
            }
            #expect(first == "tick-0\n")
            // The server notices the reset stream long before its 250 ticks are over.
            #expect(await probes.clientWentAway.wait())
            let response = try await client.execute(HTTP2Request(path: "/echo"))
            await client.shutdown()
            #expect(response.status == 200)
        }
    }

    @Test("the timeout of a streamed request covers only the wait for the response head")
    func timeoutCoversOnlyTheHead() async throws {
        let probes = Probes()
        try await withTestServer(.cleartext, router: makeTestRouter(probes: probes)) { server in
            let client = try server.makeClient()
            // Connect first, so the timeout only has to cover the stream.
            _ = try await client.execute(HTTP2Request(path: "/echo"))
            // Ample for the head to arrive on a busy machine; the body then takes longer than that.
            let timeout = Duration.seconds(3)
            let clock = ContinuousClock()
            let start = clock.now
            let request = HTTP2Request(path: "/slow-body", timeout: timeout)
            let (body, timeOnStream) = try await client.withStreamingResponse(request) { response in
                var iterator = response.body.makeAsyncIterator()
                var body = try await iterator.next().map { String(buffer: $0) } ?? ""
                // Not a synchronisation: the point is to outlive the timeout, by a margin for a late timer.
                try await Task.sleep(until: start + timeout + .seconds(1), clock: clock)
                // The server holds the rest of the body until now.
                probes.release.fire()
                while let chunk = try await iterator.next() {
                    body += String(buffer: chunk)
                }
                return (body, clock.now - start)
            }
            await client.shutdown()
            #expect(body == "first\nsecond\n")
            #expect(timeOnStream > timeout)
        }
    }

    @Test("a streamed request whose head does not come in time fails with timeout")
    func headTimeout() async throws {
        let probes = Probes()
        try await withTestServer(.cleartext, router: makeTestRouter(probes: probes)) { server in
            let client = try server.makeClient()
            // Connect first, so the short timeout can only run out while waiting for the head.
            _ = try await client.execute(HTTP2Request(path: "/echo"))
            let result = await capture {
                try await client.withStreamingResponse(HTTP2Request(path: "/slow-head", timeout: .milliseconds(300))) {
                    _ in true
                }
            }
            probes.release.fire()
            await client.shutdown()
            #expect(throws: HTTP2ClientError.timeout) { try result.get() }
        }
    }

    @Test("an error thrown by the body closure is rethrown unchanged")
    func bodyErrorsPassThrough() async throws {
        struct Expected: Error {}
        try await withTestServer(.cleartext, router: makeTestRouter()) { server in
            let client = try server.makeClient()
            await #expect(throws: Expected.self) {
                try await client.withStreamingResponse(HTTP2Request(path: "/endless")) { _ -> Int in throw Expected() }
            }
            await client.shutdown()
        }
    }
}
