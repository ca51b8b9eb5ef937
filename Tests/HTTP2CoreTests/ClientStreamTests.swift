import HTTP2Core
import NIOCore
import Testing

/// The core's client against the core's server: flow control paced by the reader, cancellation, body limits.
@Suite("HTTP/2 core client streams")
struct ClientStreamTests {
    @Test("a streamed body is paced by its reader: unread, no more than the stream window arrives")
    func backpressure() async throws {
        let server = try await TestServer()
        var configuration = HTTP2ClientSessionConfiguration()
        configuration.streamWindowBytes = 64 << 10
        let connection = try await connectClient(port: server.port, configuration: configuration)
        let stream = connection.request(
            HTTP2ClientRequestHead(method: "GET", scheme: "http", authority: "127.0.0.1", path: "/bytes?n=2000000"),
            body: nil, bodyLimit: nil)
        #expect(try await stream.head().status == 200)
        try await Task.sleep(for: .milliseconds(500))
        let unread = stream.bufferedByteCount
        var total = 0
        while let chunk = try await stream.nextChunk() { total += chunk.readableBytes }
        connection.close()
        await server.shutdown()
        #expect(unread > 0 && unread <= 64 << 10)
        #expect(total == 2_000_000)
    }

    @Test("cancelling a request resets its stream: the server's handler sees the cancellation")
    func cancelResets() async throws {
        let server = try await TestServer()
        let connection = try await connectClient(port: server.port)
        let stream = connection.request(
            HTTP2ClientRequestHead(method: "GET", scheme: "http", authority: "127.0.0.1", path: "/hold"),
            body: nil, bodyLimit: 1024)
        #expect(await server.holdArrived.wait())
        stream.cancel(.cancelled)
        #expect(await server.holdCancelled.wait())
        await #expect(throws: HTTP2ClientStreamFailure.cancelled) { _ = try await stream.head() }
        let after = try await connection.fetch("/hello")
        connection.close()
        await server.shutdown()
        #expect(after.status == 200)
    }

    @Test("a buffered response over its limit fails with bodyTooLarge; the connection carries on")
    func bodyLimit() async throws {
        let server = try await TestServer()
        let connection = try await connectClient(port: server.port)
        await #expect(throws: HTTP2ClientStreamFailure.bodyTooLarge(1000)) {
            _ = try await connection.fetch("/bytes?n=100000", bodyLimit: 1000)
        }
        let echoed = try await connection.fetch("/echo", method: "POST", body: ByteBuffer(repeating: 7, count: 200_000))
        connection.close()
        await server.shutdown()
        #expect(echoed.status == 200 && echoed.body == ByteBuffer(repeating: 7, count: 200_000))
    }

    @Test("after an event stream shrinks the server's header table, fields the client indexes still arrive")
    func indexedFieldsAfterShrink() async throws {
        // nghttp2's encoder (ours, curl's) indexes fields such as `content-type` (not `authorization`); once the server
        // advertises a 0-byte table it must say so at the start of its next header block and index nothing.
        let server = try await TestServer()
        let connection = try await connectClient(port: server.port)
        let events = try await connection.fetch("/events")
        #expect(events.status == 200)
        for index in 0..<20 {
            let stream = connection.request(
                HTTP2ClientRequestHead(
                    method: "POST", scheme: "http", authority: "127.0.0.1", path: "/echo",
                    headers: [("authorization", "Bearer token-\(index)"), ("content-type", "x-trace/\(index)")]),
                body: ByteBuffer(string: "\(index)"), bodyLimit: 1024)
            let head = try await stream.head()
            #expect(head.status == 200)
            let echoed = head.headers.first { $0.0 == "content-type" }?.1
            #expect(echoed == "x-trace/\(index)", "request \(index)'s field arrived as \(echoed ?? "nothing")")
            var body = ByteBuffer()
            while var chunk = try await stream.nextChunk() { body.writeBuffer(&chunk) }
            #expect(body == ByteBuffer(string: "\(index)"))
        }
        connection.close()
        await server.shutdown()
    }

    @Test("a PING is acknowledged; after the connection closes, requests fail as not sent")
    func pingAndClosed() async throws {
        let server = try await TestServer()
        let connection = try await connectClient(port: server.port)
        try await connection.ping(42).get()
        connection.close()
        try await connection.channel.closeFuture.get()
        let failure = await #expect(throws: HTTP2ClientStreamFailure.self) { _ = try await connection.fetch("/hello") }
        await server.shutdown()
        #expect(failure?.requestWasNotProcessed == true)
    }
}
