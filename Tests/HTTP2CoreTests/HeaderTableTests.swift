import CNGHTTP2
import NIOCore
import NIOEmbedded
import Synchronization
import Testing

@testable import HTTP2Core

/// A connection holding a streaming response (a device's event stream) lives for hours; what its client indexed in
/// the server's HPACK decoder (each new value of a varying field, such as a bearer token for clients that index it)
/// would stay in memory with it, up to the RFC's 4,096-byte table. Issue 33's devices benchmark: ~1 kB a connection
/// for one request's indexed fields, ~4.5 kB for a full table (over a client that indexes nothing).
@Suite("HTTP/2 core: a connection holding a streaming response keeps no request header table")
struct HeaderTableTests {
    typealias Wire = RequestTimerTests

    /// `:authority: localhost`, not indexed (literal without indexing, static name 1).
    static let authority: [UInt8] = [0x01, 9] + Array("localhost".utf8)

    /// A GET of `path` whose header block indexes `authorization` (literal with incremental indexing, static name 23).
    static func indexingRequest(stream: UInt32, path: String, token: String) -> [UInt8] {
        let value = Array("Bearer \(token)".utf8)
        let pathField = [0x04, UInt8(path.utf8.count)] + Array(path.utf8)  // literal without indexing, static name 4
        let block: [UInt8] = [0x82, 0x86] + pathField + authority + [0x57, UInt8(value.count)] + value
        return Wire.frame(type: 0x1, flags: 0x5, stream: stream, block)
    }

    /// A GET of `path` with no field indexed; `tableSizeUpdate` starts its block with "dynamic table size 0" (RFC 7541
    /// §6.3), which an encoder must send after the decoder's table shrank.
    static func plainRequest(stream: UInt32, path: String, tableSizeUpdate: Bool) -> [UInt8] {
        let pathField = [0x04, UInt8(path.utf8.count)] + Array(path.utf8)
        let block: [UInt8] = (tableSizeUpdate ? [0x20] : []) + [0x82, 0x86] + pathField + authority
        return Wire.frame(type: 0x1, flags: 0x5, stream: stream, block)
    }

    /// The SETTINGS_HEADER_TABLE_SIZE values in the non-ACK SETTINGS frames among `frames`.
    static func headerTableSettings(
        in frames: [(type: UInt8, flags: UInt8, stream: UInt32, payload: [UInt8])]
    ) -> [UInt32] {
        frames.filter { $0.type == 0x4 && $0.flags & 0x1 == 0 }.flatMap { frame in
            stride(from: 0, to: frame.payload.count - 5, by: 6).compactMap { offset -> UInt32? in
                let entry = frame.payload[offset..<offset + 6]
                guard entry[offset] == 0, entry[offset + 1] == 0x1 else { return nil }
                return entry[(offset + 2)...].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            }
        }
    }

    /// The response streams a ``StreamingConnection`` started (each holds the handler until dropped).
    final class StreamList: Sendable {
        private let streams = Mutex<[HTTP2ResponseStream]>([])
        func append(_ stream: HTTP2ResponseStream) { streams.withLock { $0.append(stream) } }
        var count: Int { streams.withLock { $0.count } }
        func removeAll() { streams.withLock { $0 = [] } }
    }

    /// A connection on an embedded channel whose handler starts a streaming response for `/events` (204 for any other
    /// path); ``close()`` ends it.
    struct StreamingConnection {
        let loop: EmbeddedEventLoop
        let streams: StreamList
        let channel: EmbeddedChannel
        let handler: HTTP2ConnectionHandler

        init(limits: HTTP2Limits = HTTP2Limits()) throws {
            let (loop, streams) = (EmbeddedEventLoop(), StreamList())
            (channel, handler) = try Wire.connection(on: loop, limits: limits) { request, responder in
                guard request.path == "/events" else { return .response(HTTP2Response(status: 204)) }
                streams.append(responder.startStream(headers: ["content-type": "text/event-stream"]))
                return .deferred
            }
            (self.loop, self.streams) = (loop, streams)
        }

        func close() {
            _ = try? channel.finish()
            streams.removeAll()
        }
    }

    static func decoderTableBytes(_ handler: HTTP2ConnectionHandler) throws -> Int {
        let session: OpaquePointer = try #require(handler.session)
        return Int(nghttp2_session_get_hd_inflate_dynamic_table_size(session))
    }

    @Test("starting a streaming response advertises a 0-byte table; the client's ack drops what it had indexed")
    func streamingShrinksTable() throws {
        let connection = try StreamingConnection()
        defer { connection.close() }
        let (loop, channel, handler) = (connection.loop, connection.channel, connection.handler)
        try Wire.send(
            Wire.preface + Wire.frame(type: 0x4, flags: 0, stream: 0) + Wire.frame(type: 0x4, flags: 0x1, stream: 0)
                + Self.indexingRequest(stream: 1, path: "/events", token: String(repeating: "t", count: 100)),
            to: channel)  // the ack is the server's first SETTINGS frame's
        loop.run()
        let held = try Self.decoderTableBytes(handler)
        // RFC 7541 §4.1 counts an entry as its name's and value's bytes plus 32.
        #expect(held == 13 + 107 + 32, "the indexed authorization field is not in the decoder's table (\(held) bytes)")
        let first = try Wire.frames(readFrom: channel)
        #expect(Self.headerTableSettings(in: first) == [0], "no SETTINGS_HEADER_TABLE_SIZE 0 with the event stream")
        #expect(first.contains { $0.type == 0x1 && $0.stream == 1 }, "the event stream's headers were not sent")

        // Until the client acknowledges, what it indexed stays usable; its ack of this second frame empties the table.
        try Wire.send(Wire.frame(type: 0x4, flags: 0x1, stream: 0), to: channel)
        loop.run()
        #expect(try Self.decoderTableBytes(handler) == 0, "the client's ack left the decoder's table full")

        // The client's next request starts with the table size update and is answered; a second event stream on the
        // same connection sends no second SETTINGS frame.
        try Wire.send(Self.plainRequest(stream: 3, path: "/events", tableSizeUpdate: true), to: channel)
        loop.run()
        let later = try Wire.frames(readFrom: channel)
        #expect(later.contains { $0.type == 0x1 && $0.stream == 3 }, "the request after the ack was not answered")
        #expect(connection.streams.count == 2, "the second request did not start a streaming response")
        #expect(Self.headerTableSettings(in: later).isEmpty, "a second streaming response advertised the table again")
        #expect(!later.contains { $0.type == 0x7 }, "GOAWAY: \(later.filter { $0.type == 0x7 })")
    }

    @Test("a client that does not apply the smaller table after its ack loses the connection (COMPRESSION_ERROR)")
    func missingTableSizeUpdate() throws {
        // RFC 7541 §4.2: the update MUST start the next header block. nghttp2 holds clients to it; this pins what a
        // non-conforming client meets (and why SECUREPUSH_STREAMING_HEADER_TABLE_BYTES=4096 exists).
        let connection = try StreamingConnection()
        defer { connection.close() }
        let (loop, channel, handler) = (connection.loop, connection.channel, connection.handler)
        try Wire.send(
            Wire.preface + Wire.frame(type: 0x4, flags: 0, stream: 0) + Wire.frame(type: 0x4, flags: 0x1, stream: 0)
                + Self.plainRequest(stream: 1, path: "/events", tableSizeUpdate: false), to: channel)
        loop.run()
        #expect(Self.headerTableSettings(in: try Wire.frames(readFrom: channel)) == [0])
        try Wire.send(
            Wire.frame(type: 0x4, flags: 0x1, stream: 0)
                + Self.plainRequest(stream: 3, path: "/events", tableSizeUpdate: false), to: channel)
        loop.run()
        let goAways = try Wire.frames(readFrom: channel).filter { $0.type == 0x7 }
        #expect(goAways.map { Array($0.payload[4..<8]) } == [[0, 0, 0, 9]], "no GOAWAY COMPRESSION_ERROR: \(goAways)")
        #expect(handler.configuration.load.headerTableFailureCount == 1, "the failure was not counted (nor logged)")
    }

    @Test("a connection answering complete responses keeps the RFC's table")
    func completeResponsesKeepTable() throws {
        let (channel, handler) = try Wire.connection()
        defer { _ = try? channel.finish() }
        try Wire.send(
            Wire.preface + Wire.frame(type: 0x4, flags: 0, stream: 0)
                + Self.indexingRequest(stream: 1, path: "/", token: "abc")
                + Wire.frame(type: 0x4, flags: 0x1, stream: 0),
            to: channel)
        let frames = try Wire.frames(readFrom: channel)
        #expect(frames.contains { $0.type == 0x1 && $0.stream == 1 })
        #expect(Self.headerTableSettings(in: frames).isEmpty)
        #expect(try Self.decoderTableBytes(handler) == 13 + 10 + 32, "the indexed field was not kept")
    }

    @Test("streamingHeaderTableBytes 4096 leaves a streaming connection's table as the RFC sets it")
    func optOut() throws {
        var limits = HTTP2Limits()
        limits.streamingHeaderTableBytes = 4096
        let connection = try StreamingConnection(limits: limits)
        defer { connection.close() }
        let (loop, channel, handler) = (connection.loop, connection.channel, connection.handler)
        try Wire.send(
            Wire.preface + Wire.frame(type: 0x4, flags: 0, stream: 0)
                + Self.indexingRequest(stream: 1, path: "/events", token: "abc")
                + Wire.frame(type: 0x4, flags: 0x1, stream: 0), to: channel)
        loop.run()
        #expect(connection.streams.count == 1, "the request did not start a streaming response")
        #expect(Self.headerTableSettings(in: try Wire.frames(readFrom: channel)).isEmpty)
        #expect(try Self.decoderTableBytes(handler) == 13 + 10 + 32)
    }
}
