import Foundation
import ServiceCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A port a service of the stack will listen on, checked before anything starts or is written to disk.
public struct ListeningPort: Sendable, Hashable {
    /// The service's name.
    public var service: String
    /// The variable that sets the port.
    public var variable: String
    /// The port (0: any free port).
    public var port: Int

    public init(service: String, variable: String, port: Int) {
        self.service = service
        self.variable = variable
        self.port = port
    }

    /// The three services' ports as `environment` sets them (defaults 8081, 8082, 8083).
    public static func configured(in environment: [String: String]) throws -> [ListeningPort] {
        let values = ServiceEnvironment(environment)
        return try [
            ("auth", SettingCatalog.authPort), ("notification-store", SettingCatalog.storePort),
            ("push-dispatch", SettingCatalog.dispatchPort),
        ].map { service, setting in
            ListeningPort(service: service, variable: setting.setting.name, port: try values.server(port: setting).port)
        }
    }

    /// Throws ``PortInUseError`` for the first port another process already listens on at `host` (an IP literal;
    /// host names are left to the real bind). Port 0 is always free.
    public static func ensureFree(_ ports: [ListeningPort], host: String) throws {
        for port in ports where port.port != 0 {
            if !isFree(port: port.port, host: host) { throw PortInUseError(port: port, host: host) }
        }
    }

    /// Whether a listening socket could be bound at `host:port` right now.
    static func isFree(port: Int, host: String) -> Bool {
        var storage = sockaddr_storage()
        var length: socklen_t
        let family: Int32
        if host.contains(":") {
            var address = sockaddr_in6()
            guard inet_pton(AF_INET6, host, &address.sin6_addr) == 1 else { return true }
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = in_port_t(UInt16(port).bigEndian)
            family = AF_INET6
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
            withUnsafeBytes(of: address) { bytes in
                withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: bytes) }
            }
        } else {
            var address = sockaddr_in()
            guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { return true }
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            family = AF_INET
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
            withUnsafeBytes(of: address) { bytes in
                withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: bytes) }
            }
        }
        #if canImport(Glibc)
            let fd = socket(family, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let fd = socket(family, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { return true }
        defer { close(fd) }
        // As the server will: a port left in TIME_WAIT by an earlier run counts as free.
        var on: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        let bound = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 }
        }
        return bound || errno != EADDRINUSE
    }
}

/// Another process already listens on a port the stack needs.
public struct PortInUseError: Error, CustomStringConvertible, Sendable {
    /// The port, its service and its variable.
    public let port: ListeningPort
    /// The address it was checked on.
    public let host: String

    public var description: String {
        "port \(port.port) (\(port.service), \(port.variable)) on \(host) is already in use"
    }
}
