import Logging
import NIOCore
import NIOEmbedded
import Synchronization
import Testing

@testable import HTTP2Core

/// Issue 23's timers are armed only when there is something to watch: the request deadline for requests still arriving
/// when a read burst ends (a request that arrived whole, such as the `GET` that holds a device's event stream open for
/// hours, needs none), the stall check for response bytes a round of writing left waiting (a keepalive that went out
/// needs none). 10,000 idle event streams held 10,000 of each, scheduled and fired for nothing: issue 33's idle CPU.
@Suite("HTTP/2 core: the request and stall timers are armed only when something waits")
struct RequestTimerTests {
    static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    /// One frame: 9-byte header, then `payload`.
    static func frame(type: UInt8, flags: UInt8, stream: UInt32, _ payload: [UInt8] = []) -> [UInt8] {
        let length = UInt32(payload.count)
        return [UInt8(length >> 16 & 0xff), UInt8(length >> 8 & 0xff), UInt8(length & 0xff), type, flags]
            + [UInt8(stream >> 24 & 0x7f), UInt8(stream >> 16 & 0xff), UInt8(stream >> 8 & 0xff), UInt8(stream & 0xff)]
            + payload
    }

    /// A request's header block (HPACK: static-table entries and one literal `:authority`).
    static func headers(method: String, stream: UInt32, endStream: Bool) -> [UInt8] {
        let methodIndex: UInt8 = method == "GET" ? 0x82 : 0x83
        let authority = Array("localhost".utf8)
        let block = [methodIndex, 0x86, 0x84, 0x41, UInt8(authority.count)] + authority
        return frame(type: 0x1, flags: 0x4 | (endStream ? 0x1 : 0), stream: stream, block)
    }

    /// A connection handler on an embedded channel, connected, its request handler answering 200 at once (or as
    /// `reply` says).
    static func connection(
        on loop: EmbeddedEventLoop = EmbeddedEventLoop(), limits: HTTP2Limits = HTTP2Limits(),
        reply: @escaping HTTP2RequestHandler = { _, _ in .response(HTTP2Response(status: 200)) }
    ) throws -> (EmbeddedChannel, HTTP2ConnectionHandler) {
        let handler = HTTP2ConnectionHandler(
            configuration: HTTP2ConnectionConfiguration(
                handler: reply, limits: limits,
                load: HTTP2ServerLoad(), rejection: { status, _ in HTTP2Response(status: status) }),
            logger: Logger(label: "request-timer-test"))
        let channel = EmbeddedChannel(handler: handler, loop: loop)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        return (channel, handler)
    }

    static func send(_ bytes: [UInt8], to channel: EmbeddedChannel) throws {
        try channel.writeInbound(ByteBuffer(bytes: bytes))
    }

    @Test("a GET that arrived whole (an event stream's) arms no timer; a request still arriving does, until it ends")
    func timerOnlyWhileArriving() throws {
        let (channel, handler) = try Self.connection()
        defer { _ = try? channel.finish() }
        try Self.send(
            Self.preface + Self.frame(type: 0x4, flags: 0, stream: 0)
                + Self.headers(method: "GET", stream: 1, endStream: true), to: channel)
        #expect(handler.requestTimer == nil, "a request that arrived whole armed the request timer")

        // Headers without END_STREAM: its body is still to come, so its deadline is watched.
        try Self.send(Self.headers(method: "POST", stream: 3, endStream: false), to: channel)
        #expect(handler.requestTimer != nil, "a request still arriving has no deadline timer")
    }

    @Test("a request still arriving at its deadline is answered by the timer armed at the end of its burst")
    func arrivingRequestExpires() async throws {
        // The handler's deadlines are on the real clock; the embedded loop runs its timers when told to reach them.
        var limits = HTTP2Limits()
        limits.requestTimeout = .milliseconds(300)
        let loop = EmbeddedEventLoop()
        let (channel, handler) = try Self.connection(on: loop, limits: limits)
        defer { _ = try? channel.finish() }
        try Self.send(
            Self.preface + Self.frame(type: 0x4, flags: 0, stream: 0)
                + Self.headers(method: "POST", stream: 1, endStream: false), to: channel)
        loop.advanceTime(to: .now())
        #expect(try Self.headersFrames(on: 1, readFrom: channel) == 0, "answered before its deadline")
        #expect(handler.requestTimer != nil)
        try await Task.sleep(for: .milliseconds(400))
        loop.advanceTime(to: .now())
        #expect(try Self.headersFrames(on: 1, readFrom: channel) == 1, "not answered (408) at its deadline")
        #expect(handler.requestTimer == nil)
    }

    /// How many HEADERS frames on `stream` the handler has written since the last call.
    static func headersFrames(on stream: UInt8, readFrom channel: EmbeddedChannel) throws -> Int {
        try frames(readFrom: channel).count { $0.type == 0x1 && $0.stream == UInt32(stream) }
    }

    /// The frames the handler has written since the last call.
    static func frames(
        readFrom channel: EmbeddedChannel
    ) throws -> [(type: UInt8, flags: UInt8, stream: UInt32, payload: [UInt8])] {
        var bytes: [UInt8] = []
        while let buffer = try channel.readOutbound(as: ByteBuffer.self) { bytes += Array(buffer.readableBytesView) }
        var frames: [(type: UInt8, flags: UInt8, stream: UInt32, payload: [UInt8])] = []
        var offset = 0
        while offset + 9 <= bytes.count {
            let length = Int(bytes[offset]) << 16 | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2])
            let stream = bytes[offset + 5...offset + 8].reduce(UInt32(0)) { $0 << 8 | UInt32($1) } & 0x7fff_ffff
            let end = min(bytes.count, offset + 9 + length)
            frames.append((bytes[offset + 3], bytes[offset + 4], stream, Array(bytes[offset + 9..<end])))
            offset += 9 + length
        }
        return frames
    }

    @Test("a streamed response whose bytes went out arms no stall check; bytes left waiting (socket full) do")
    func stallCheckOnlyWhileBytesWait() throws {
        let loop = EmbeddedEventLoop()
        let stream = Mutex<HTTP2ResponseStream?>(nil)
        let (channel, handler) = try Self.connection(on: loop) { _, responder in
            stream.withLock { $0 = responder.startStream(headers: ["content-type": "text/event-stream"]) }
            return .deferred
        }
        defer {
            _ = try? channel.finish()
            // The request handler's closure (kept by the handler) holds the response stream, which holds the handler.
            stream.withLock { $0 = nil }
        }
        try Self.send(
            Self.preface + Self.frame(type: 0x4, flags: 0, stream: 0)
                + Self.headers(method: "GET", stream: 1, endStream: true), to: channel)
        loop.run()
        let events = try #require(stream.withLock { $0 })
        let first = events.write(ByteBuffer(string: ": keepalive\n\n"))
        loop.run()
        try first.wait()
        #expect(try Self.headersFrames(on: 1, readFrom: channel) == 1)
        #expect(handler.pendingResponseBytes == 0)
        #expect(handler.stallTimer == nil, "bytes that went out armed the stall check")

        channel.isWritable = false  // the socket is full: the next bytes wait
        _ = events.write(ByteBuffer(string: "event: push.notify\n\n"))
        loop.run()
        #expect(handler.pendingResponseBytes > 0)
        #expect(handler.stallTimer != nil, "bytes left waiting have no stall check")
    }
}
