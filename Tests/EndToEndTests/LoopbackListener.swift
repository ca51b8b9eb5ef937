import Foundation

/// Who listens on a loopback TCP port, read from Linux's `/proc`: a test that starts a service on a port it chose
/// checks that the answer comes from its own process, not from another test's service that took the same port
/// between the choice and the bind.
enum LoopbackListener {
    /// Whether process `pid` holds the socket listening on `port` (IPv4 or IPv6, any local address).
    ///
    /// `/proc/net/tcp` and `tcp6` name each listening socket's inode (state `0A`); `/proc/PID/fd` links to the
    /// sockets the process holds as `socket:[inode]`. `nil` when `/proc` cannot be read (not Linux).
    static func isHeld(byProcess pid: Int32, port: Int) -> Bool? {
        let tables = ["/proc/net/tcp", "/proc/net/tcp6"].compactMap { try? String(contentsOfFile: $0, encoding: .utf8) }
        guard !tables.isEmpty,
            let descriptors = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")
        else { return nil }
        let inodes = Set(tables.flatMap { listeningInodes(in: $0, port: port) })
        return descriptors.contains { descriptor in
            let link = "/proc/\(pid)/fd/\(descriptor)"
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: link) else { return false }
            return inodes.contains { target == "socket:[\($0)]" }
        }
    }

    /// The inodes of the sockets listening on `port` in one `/proc/net/tcp`-style table.
    static func listeningInodes(in table: String, port: Int) -> [String] {
        let hexPort = String(format: ":%04X", port)
        return table.split(separator: "\n").dropFirst().compactMap { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
            guard fields.count > 9, fields[1].hasSuffix(hexPort), fields[3] == "0A" else { return nil }
            return String(fields[9])
        }
    }
}
