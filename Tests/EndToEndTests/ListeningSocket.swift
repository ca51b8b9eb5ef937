import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A TCP socket listening on a free loopback port, as another program holding the port would.
final class ListeningSocket {
    let fd: Int32
    let port: Int

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.fd = fd
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ready = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && listen(fd, 1) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard fd >= 0, ready else { throw ShellCommandError("cannot listen on a loopback port") }
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// Stops listening and frees the port.
    func close() { _ = Glibc.close(fd) }
}
