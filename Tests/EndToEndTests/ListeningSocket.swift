import ChildProcesses
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A TCP socket listening on a free loopback port, as another program holding the port would.
final class ListeningSocket {
    let fd: Int32
    let port: Int

    init() throws {
        (fd, port) = try LoopbackPort.bind(listening: true)
    }

    /// Stops listening and frees the port.
    func close() { _ = Glibc.close(fd) }
}
