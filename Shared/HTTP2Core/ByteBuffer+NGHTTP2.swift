import NIOCore

extension ByteBuffer {
    /// Moves up to `length` of the readable bytes into `destination`, nghttp2's buffer in a data-source read
    /// callback (valid only during that call), and returns how many it moved. The one copy out of a body at the C
    /// boundary, for the server's responses and the client's requests.
    mutating func moveReadableBytes(into destination: UnsafeMutablePointer<UInt8>, upTo length: Int) -> Int {
        let count = Swift.min(length, readableBytes)
        guard count > 0 else { return 0 }
        withUnsafeReadableBytes { bytes in
            UnsafeMutableRawPointer(destination).copyMemory(from: bytes.baseAddress!, byteCount: count)
        }
        moveReaderIndex(forwardBy: count)
        return count
    }
}
