import Foundation
import SwiftASN1
import X509

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A name a server certificate is valid for: a DNS name or an IP address (a subject alternative name).
public enum SubjectHost: Sendable, Hashable, CustomStringConvertible {
    /// A DNS name such as `auth` or `localhost`, stored lowercased.
    case dns(String)
    /// An IPv4 (4 bytes) or IPv6 (16 bytes) address.
    case ipAddress([UInt8])

    /// Parses `127.0.0.1`, `::1` or a DNS name.
    ///
    /// - Throws: ``DevelopmentPKIError`` for an empty string or a name with characters DNS does not allow.
    public init(_ text: String) throws {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let bytes = Self.parseAddress(trimmed, family: AF_INET, length: 4)
            ?? Self.parseAddress(trimmed, family: AF_INET6, length: 16)
        {
            self = .ipAddress(bytes)
            return
        }
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789-.*")
        let name = trimmed.lowercased()
        guard !name.isEmpty, name.count <= 253, name.allSatisfy(allowed.contains), !name.hasPrefix("."),
            !name.hasSuffix("."), !name.contains("..")
        else {
            throw DevelopmentPKIError("'\(text)' is neither an IP address nor a DNS name")
        }
        self = .dns(name)
    }

    /// The host as written in a URL or a certificate's common name.
    public var description: String {
        switch self {
        case .dns(let name): name
        case .ipAddress(let bytes): Self.format(bytes)
        }
    }

    var generalName: GeneralName {
        switch self {
        case .dns(let name): .dnsName(name)
        case .ipAddress(let bytes): .ipAddress(ASN1OctetString(contentBytes: ArraySlice(bytes)))
        }
    }

    /// The hosts every local service certificate carries: `localhost`, `127.0.0.1` and `::1`.
    public static let loopback: [SubjectHost] = [
        .dns("localhost"), .ipAddress([127, 0, 0, 1]), .ipAddress([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]),
    ]

    private static func parseAddress(_ text: String, family: Int32, length: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: 16)
        let parsed = bytes.withUnsafeMutableBytes { inet_pton(family, text, $0.baseAddress) }
        return parsed == 1 ? Array(bytes.prefix(length)) : nil
    }

    private static func format(_ bytes: [UInt8]) -> String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        let result = bytes.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &buffer, socklen_t(buffer.count)) }
        guard result != nil else { return bytes.map(String.init).joined(separator: ".") }
        let text = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: text, as: UTF8.self)
    }
}
