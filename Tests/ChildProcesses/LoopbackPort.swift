import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Loopback TCP ports for a test's child servers: free ones to choose, and who holds one once chosen.
///
/// A port chosen free can be taken by another test's server between the choice and the child's bind; a readiness
/// probe would then be answered by that other server. A test that checks ``isHeld(byProcess:port:)`` before it
/// trusts an answer talks to its own child only.
public enum LoopbackPort {
    /// A port on 127.0.0.1 nothing is bound to right now.
    public static func free() throws -> Int {
        try free(count: 1)[0]
    }

    /// `count` different ports on 127.0.0.1 nothing is bound to right now (each stays bound until all are chosen, so
    /// none is chosen twice).
    public static func free(count: Int) throws -> [Int] {
        var descriptors: [Int32] = []
        defer {
            for fd in descriptors { _ = close(fd) }
        }
        return try (0..<count).map { _ in
            let (fd, port) = try bind(listening: false)
            descriptors.append(fd)
            return port
        }
    }

    /// A new TCP socket bound to a free port on 127.0.0.1, listening when `listening`: the caller closes `fd`.
    public static func bind(listening: Bool) throws -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw LoopbackPortError("socket() failed: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                Glibc.bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
                    && (!listening || listen(fd, 1) == 0)
            }
        }
        guard bound else {
            let error = errno
            _ = close(fd)
            throw LoopbackPortError("binding a free loopback port failed: errno \(error)")
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// Whether process `pid` holds the socket listening on `port` (IPv4 or IPv6, any local address): `false` also
    /// when the process is gone; `nil` only when `/proc/net/tcp` cannot be read (not Linux).
    ///
    /// `/proc/net/tcp` and `tcp6` name each listening socket's inode (state `0A`); `/proc/PID/fd` links to the
    /// sockets the process holds as `socket:[inode]`. The kernel writes those tables a page at a time and walks them
    /// again for each page, so sockets opened or closed meanwhile can make a line go missing: a `false` is read again
    /// a few times (a `true` cannot be wrong: the inode must be one of the process's own sockets).
    public static func isHeld(byProcess pid: Int32, port: Int) -> Bool? {
        for _ in 0..<5 {
            let tables = ["/proc/net/tcp", "/proc/net/tcp6"].compactMap(readWhole)
            guard !tables.isEmpty else { return nil }
            guard let descriptors = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd") else {
                return false
            }
            let inodes = Set(tables.flatMap { listeningInodes(in: $0, port: port) })
            let held = descriptors.contains { descriptor in
                let link = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(descriptor)")
                return link.map { target in inodes.contains { target == "socket:[\($0)]" } } ?? false
            }
            if held { return true }
        }
        return false
    }

    /// A `/proc` file read to its end; `nil` when it cannot be opened.
    static func readWhole(_ path: String) -> String? {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { _ = close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            bytes += buffer[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The inodes of the sockets listening on `port` in one `/proc/net/tcp`-style table.
    public static func listeningInodes(in table: String, port: Int) -> [String] {
        let hexPort = String(format: ":%04X", port)
        return table.split(separator: "\n").dropFirst().compactMap { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
            guard fields.count > 9, fields[1].hasSuffix(hexPort), fields[3] == "0A" else { return nil }
            return String(fields[9])
        }
    }
}

/// No free port could be had.
public struct LoopbackPortError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
