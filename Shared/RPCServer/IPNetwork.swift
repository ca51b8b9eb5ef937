import NIOCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An IP address range in CIDR notation (`10.0.0.0/8`, `2001:db8::/32`, or a single address), IPv4 or IPv6.
public struct IPNetwork: Sendable, Hashable, CustomStringConvertible {
    /// The network's address bytes (4 for IPv4, 16 for IPv6), host bits cleared.
    let bytes: [UInt8]
    /// How many leading bits are fixed (0 matches every address of its family).
    public let prefixLength: Int

    /// Parses `address[/prefix]`; without a prefix the range holds that one address. `nil` when malformed.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = IPNetwork.addressBytes(String(parts[0])) else { return nil }
        let bits = address.count * 8
        var prefix = bits
        if parts.count == 2 {
            guard let parsed = Int(parts[1]), (0...bits).contains(parsed), parts[1].allSatisfy(\.isASCII) else {
                return nil
            }
            prefix = parsed
        }
        self.prefixLength = prefix
        self.bytes = IPNetwork.masked(address, prefix: prefix)
    }

    /// Whether `address` (textual IPv4 or IPv6) lies in the range.
    public func contains(_ address: String) -> Bool {
        guard let candidate = IPNetwork.addressBytes(address), candidate.count == bytes.count else { return false }
        return IPNetwork.masked(candidate, prefix: prefixLength) == bytes
    }

    public var description: String {
        let address = bytes.count == 4 ? bytes.map(String.init).joined(separator: ".") : IPNetwork.text(ofIPv6: bytes)
        return "\(address)/\(prefixLength)"
    }

    /// The canonical text of an IP address (IPv4-mapped IPv6 as plain IPv4), or `nil` when `text` is not one.
    public static func canonicalAddress(_ text: String) -> String? {
        guard let bytes = addressBytes(text) else { return nil }
        return bytes.count == 4 ? bytes.map(String.init).joined(separator: ".") : IPNetwork.text(ofIPv6: bytes)
    }

    /// The 4 or 16 bytes of a textual address; an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`) gives its IPv4 bytes.
    static func addressBytes(_ text: String) -> [UInt8]? {
        // Zone ids (`fe80::1%eth0`) and anything but hex digits, dots and colons are refused before parsing.
        guard !text.isEmpty, text.utf8.count <= 45,
            text.utf8.allSatisfy({ $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: ":") || $0.isHexDigit })
        else { return nil }
        guard let socket = try? SocketAddress(ipAddress: text, port: 0) else { return nil }
        switch socket {
        case .v4(let address):
            return withUnsafeBytes(of: address.address.sin_addr) { Array($0) }
        case .v6(let address):
            let bytes = withUnsafeBytes(of: address.address.sin6_addr) { Array($0) }
            if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xff && bytes[11] == 0xff {
                return Array(bytes[12...])
            }
            return bytes
        default:
            return nil
        }
    }

    private static func masked(_ bytes: [UInt8], prefix: Int) -> [UInt8] {
        bytes.enumerated().map { index, byte in
            let kept = min(max(prefix - index * 8, 0), 8)
            return kept == 8 ? byte : byte & ~(0xff >> UInt8(kept))
        }
    }

    private static func text(ofIPv6 bytes: [UInt8]) -> String {
        var storage = sockaddr_in6()
        storage.sin6_family = sa_family_t(AF_INET6)
        withUnsafeMutableBytes(of: &storage.sin6_addr) { $0.copyBytes(from: bytes) }
        return SocketAddress(storage, host: "").ipAddress ?? bytes.map { String($0, radix: 16) }.joined(separator: ":")
    }
}

extension UInt8 {
    fileprivate var isHexDigit: Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(self)
    }
}
