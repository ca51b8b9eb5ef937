import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A bare cleartext HTTP/2 client on a blocking socket: it sends exactly the bytes a test asks for and never answers
/// anything (no SETTINGS ack, no PING ack), like a dead or hostile peer. Reads report the frame types received.
final class RawHTTP2Connection {
    /// HTTP/2 frame types a test looks for.
    enum FrameType: UInt8 {
        case data = 0x0
        case headers = 0x1
        case settings = 0x4
        case ping = 0x6
        case goAway = 0x7
    }

    private let fd: Int32

    /// Connects to `127.0.0.1:port`.
    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ServiceProcessError("socket() failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected else {
            close(fd)
            throw ServiceProcessError("connect() to port \(port) failed")
        }
    }

    deinit { close(fd) }

    /// The client connection preface and an empty SETTINGS frame.
    func sendPreface() throws {
        try send(Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8) + Self.frame(type: .settings, flags: 0, stream: 0, []))
    }

    /// A complete `GET path` request on `stream`, with a bearer token when given (HPACK literals, no Huffman coding).
    func sendGET(_ path: String, bearer: String? = nil, stream: UInt32 = 1) throws {
        var block: [UInt8] = [0x82, 0x86]  // :method GET, :scheme http (static table)
        block += [0x44] + Self.literal(path)  // :path (static name 4)
        block += [0x41] + Self.literal("127.0.0.1")  // :authority (static name 1)
        if let bearer { block += [0x57] + Self.literal("Bearer " + bearer) }  // authorization (static name 23)
        try send(Self.frame(type: .headers, flags: 0x5, stream: stream, block))  // END_STREAM | END_HEADERS
    }

    /// An HPACK string literal without Huffman coding: its length as a 7-bit-prefix integer, then its bytes.
    static func literal(_ value: String) -> [UInt8] {
        var length = value.utf8.count
        guard length >= 127 else { return [UInt8(length)] + Array(value.utf8) }
        var bytes: [UInt8] = [127]
        length -= 127
        while length >= 128 {
            bytes.append(UInt8(length & 0x7f | 0x80))
            length >>= 7
        }
        return bytes + [UInt8(length)] + Array(value.utf8)
    }

    /// Reads frames until the server closes the connection or `timeout` passes; returns the frame types seen and
    /// whether the connection was closed.
    func readUntilClosed(timeout: Duration) -> (frames: [UInt8], closed: Bool) {
        readUntilClosed(atLeast: timeout, atMost: timeout) { _ in true }
    }

    /// Reads for `atLeast`, then on until `enough` holds for the frame types read so far, the peer closes, or `atMost`
    /// has passed: for what a loaded machine may deliver late (a keepalive timer) without a shorter wait.
    func readUntilClosed(atLeast: Duration, atMost: Duration, until enough: ([UInt8]) -> Bool) -> (
        frames: [UInt8], closed: Bool
    ) {
        var buffer: [UInt8] = []
        let start = ContinuousClock.now
        let deadline = start + atMost
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while ContinuousClock.now < deadline {
            if ContinuousClock.now - start >= atLeast, enough(Self.frameTypes(in: buffer)) { break }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let remaining = max(1, Int32((deadline - ContinuousClock.now).components.seconds * 1000 + 1))
            guard poll(&poller, 1, min(remaining, 100)) > 0 else { continue }
            let count = recv(fd, &chunk, chunk.count, 0)
            if count <= 0 { return (Self.frameTypes(in: buffer), true) }
            buffer += chunk[0..<count]
        }
        return (Self.frameTypes(in: buffer), false)
    }

    private func send(_ bytes: [UInt8]) throws {
        let sent = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == bytes.count else { throw ServiceProcessError("send() failed") }
    }

    static func frame(type: FrameType, flags: UInt8, stream: UInt32, _ payload: [UInt8]) -> [UInt8] {
        let length = payload.count
        return [UInt8(length >> 16 & 0xff), UInt8(length >> 8 & 0xff), UInt8(length & 0xff), type.rawValue, flags]
            + [UInt8(stream >> 24 & 0x7f), UInt8(stream >> 16 & 0xff), UInt8(stream >> 8 & 0xff), UInt8(stream & 0xff)]
            + payload
    }

    /// The types of the complete frames in `bytes`.
    static func frameTypes(in bytes: [UInt8]) -> [UInt8] {
        var types: [UInt8] = []
        var offset = 0
        while offset + 9 <= bytes.count {
            let length = Int(bytes[offset]) << 16 | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2])
            guard offset + 9 + length <= bytes.count else { break }
            types.append(bytes[offset + 3])
            offset += 9 + length
        }
        return types
    }
}
