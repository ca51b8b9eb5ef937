import Foundation
import NIOCore
import NIOPosix

#if canImport(Glibc)
    import Glibc
#endif

/// Keeps Web Push deliveries and webhooks off this machine and its private networks (server-side request forgery): a
/// subscription's endpoint or a webhook's URL is chosen by whoever registers it, so push-dispatch must not POST to
/// loopback, private, link-local or other non-public addresses unless the operator allow-listed the host.
enum OutboundAddresses {
    /// Whether `address` (an IPv4 or IPv6 literal) is loopback, private, link-local, unspecified, shared (CGNAT),
    /// multicast or otherwise not a public unicast address.
    static func isNonPublic(_ address: String) -> Bool {
        let literal = address.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        var v4 = in_addr()
        if inet_pton(AF_INET, literal, &v4) == 1 {
            return isNonPublic(ipv4: UInt32(bigEndian: v4.s_addr))
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, literal, &v6) == 1 else { return false }
        let bytes = withUnsafeBytes(of: v6) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff {  // ::ffff:a.b.c.d
            return isNonPublic(ipv4: bytes[12..<16].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
        }
        // Addresses that carry an IPv4 address and reach it through a translator or tunnel: judged by that address.
        let embeddedIPv4 = { (start: Int) in bytes[start..<start + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) } }
        if bytes[0..<12] == [0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0] {  // 64:ff9b::/96 NAT64
            return isNonPublic(ipv4: embeddedIPv4(12))
        }
        if bytes[0] == 0x00, bytes[1] == 0x64, bytes[2] == 0xff, bytes[3] == 0x9b, bytes[4] == 0, bytes[5] == 1 {
            return true  // 64:ff9b:1::/48 local-use NAT64: the operator's own translators
        }
        if bytes[0] == 0x20, bytes[1] == 0x02 { return isNonPublic(ipv4: embeddedIPv4(2)) }  // 2002::/16 6to4
        if bytes[0..<4] == [0x20, 0x01, 0x00, 0x00] { return true }  // 2001::/32 Teredo (its IPv4 is obfuscated)
        if bytes.allSatisfy({ $0 == 0 }) { return true }  // ::
        if bytes[0..<15].allSatisfy({ $0 == 0 }), bytes[15] == 1 { return true }  // ::1
        if bytes[0] & 0xfe == 0xfc { return true }  // fc00::/7 unique local
        if bytes[0] == 0xfe, bytes[1] & 0xc0 == 0x80 { return true }  // fe80::/10 link-local
        if bytes[0] == 0xff { return true }  // multicast
        return false
    }

    private static func isNonPublic(ipv4 address: UInt32) -> Bool {
        let ranges: [(UInt32, UInt32)] = [
            (0x0000_0000, 8),  // 0.0.0.0/8 "this network"
            (0x0A00_0000, 8),  // 10.0.0.0/8
            (0x6440_0000, 10),  // 100.64.0.0/10 shared (CGNAT)
            (0x7F00_0000, 8),  // 127.0.0.0/8 loopback
            (0xA9FE_0000, 16),  // 169.254.0.0/16 link-local (cloud metadata services live here)
            (0xAC10_0000, 12),  // 172.16.0.0/12
            (0xC0A8_0000, 16),  // 192.168.0.0/16
            (0xC612_0000, 15),  // 198.18.0.0/15 benchmarking (often a lab's or a load balancer's internal range)
            (0xE000_0000, 4),  // 224.0.0.0/4 multicast
            (0xF000_0000, 4),  // 240.0.0.0/4 reserved, broadcast
        ]
        return ranges.contains { network, prefix in address >> (32 - prefix) == network >> (32 - prefix) }
    }

    /// The addresses `host` resolves to (a literal resolves to itself), looked up off the event loops.
    static func resolve(_ host: String, port: Int) async throws -> [String] {
        let literal = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        return try await NIOThreadPool.singleton.runIfActive {
            var hints = addrinfo()
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
            var list: UnsafeMutablePointer<addrinfo>?
            let status = getaddrinfo(literal, String(port), &hints, &list)
            guard status == 0, let first = list else {
                throw OutboundAddressError("cannot resolve '\(host)': \(String(cString: gai_strerror(status)))")
            }
            defer { freeaddrinfo(first) }
            var addresses: [String] = []
            var entry: UnsafeMutablePointer<addrinfo>? = first
            while let current = entry {
                if let raw = current.pointee.ai_addr.map(UnsafeRawPointer.init) {
                    switch current.pointee.ai_family {
                    case AF_INET:
                        let address = SocketAddress(raw.assumingMemoryBound(to: sockaddr_in.self).pointee)
                        if let ip = address.ipAddress { addresses.append(ip) }
                    case AF_INET6:
                        let address = SocketAddress(raw.assumingMemoryBound(to: sockaddr_in6.self).pointee)
                        if let ip = address.ipAddress { addresses.append(ip) }
                    default:
                        break
                    }
                }
                entry = current.pointee.ai_next
            }
            return addresses
        }
    }
}

/// An endpoint that cannot be resolved.
struct OutboundAddressError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
