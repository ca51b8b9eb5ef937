import Foundation

extension UUID {
    /// A random (version 4) UUID drawn from the system's generator (`getrandom`).
    ///
    /// Foundation's `UUID()` on Linux opens, reads and closes `/dev/urandom` for every UUID: three system calls and
    /// a file descriptor, several times per `push.send` across the services (request ids, notification ids,
    /// reservation ids). This is the same kind of UUID without the file.
    public static func random() -> UUID {
        var generator = SystemRandomNumberGenerator()
        var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &bytes) { buffer in
            buffer.storeBytes(of: generator.next() as UInt64, toByteOffset: 0, as: UInt64.self)
            buffer.storeBytes(of: generator.next() as UInt64, toByteOffset: 8, as: UInt64.self)
            buffer[6] = (buffer[6] & 0x0F) | 0x40  // version 4: random
            buffer[8] = (buffer[8] & 0x3F) | 0x80  // the RFC 9562 variant
        }
        return UUID(uuid: bytes)
    }
}
