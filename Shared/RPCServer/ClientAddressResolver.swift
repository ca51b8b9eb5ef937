/// Decides which address a request comes from: the socket's peer, or, when the peer is a trusted proxy, the last
/// untrusted hop of the one forwarding header the operator named (`SECUREPUSH_FORWARDED_HEADER`): `X-Forwarded-For`
/// (the default) or `Forwarded` (RFC 7239).
///
/// Only that header is read: proxies append to the header they write and pass the other one through untouched, so
/// a client could otherwise name itself in the header its proxy does not write. Headers from an untrusted peer are
/// ignored (anyone can send them). The hops are walked from the nearest: each
/// trusted one is skipped, the first untrusted one is the client. A hop that is not an IP address (`unknown`, an
/// obfuscated name, garbage) ends the walk at the nearest trusted proxy, which is then taken as the client: a broken
/// header never lets a caller choose its own address.
public struct ClientAddressResolver: Sendable {
    /// The forwarding header a trusted proxy writes.
    public enum Header: String, Sendable, CaseIterable {
        /// `X-Forwarded-For` (nginx's `$proxy_add_x_forwarded_for`, HAProxy's `option forwardfor`, cloud balancers).
        case xForwardedFor = "x-forwarded-for"
        /// `Forwarded` (RFC 7239).
        case forwarded
    }

    /// The proxies whose forwarding headers are believed.
    public let trustedProxies: [IPNetwork]
    /// The one header read from them.
    public let header: Header

    public init(trustedProxies: [IPNetwork], header: Header = .xForwardedFor) {
        self.trustedProxies = trustedProxies
        self.header = header
    }

    /// What ``resolve(peer:forwarded:forwardedFor:)`` found.
    public struct Resolution: Sendable, Hashable {
        /// The client's address (`nil` when the peer is unknown).
        public var address: String?
        /// A trusted proxy's request lacked the configured header but carried the other one: the proxy probably
        /// writes the other (a misconfiguration, logged), or a client sent it through a proxy that writes none.
        public var headerMismatch: Bool

        public init(address: String?, headerMismatch: Bool) {
            self.address = address
            self.headerMismatch = headerMismatch
        }
    }

    /// The client address for a request from `peer` (textual IP, `nil` when unknown) carrying these header values.
    /// - Parameters:
    ///   - forwarded: every `Forwarded` field value, in order (read only when ``header`` is `.forwarded`).
    ///   - forwardedFor: every `X-Forwarded-For` field value, in order (read only when ``header`` is
    ///     `.xForwardedFor`).
    public func clientAddress(peer: String?, forwarded: [String], forwardedFor: [String]) -> String? {
        resolve(peer: peer, forwarded: forwarded, forwardedFor: forwardedFor).address
    }

    /// The client address, and whether a trusted proxy's request carried only the header not configured.
    public func resolve(peer: String?, forwarded: [String], forwardedFor: [String]) -> Resolution {
        guard let peer else { return Resolution(address: nil, headerMismatch: false) }
        let canonicalPeer = IPNetwork.canonicalAddress(peer) ?? peer
        guard isTrusted(canonicalPeer) else { return Resolution(address: canonicalPeer, headerMismatch: false) }
        let (values, other) = header == .forwarded ? (forwarded, forwardedFor) : (forwardedFor, forwarded)
        let hops = header == .forwarded ? Self.forwardedHops(values) : Self.forwardedForHops(values)
        return Resolution(
            address: walk(hops, from: canonicalPeer), headerMismatch: values.isEmpty && !other.isEmpty)
    }

    /// The client among `hops` (nearest last) seen from `canonicalPeer`, a trusted proxy.
    private func walk(_ hops: [String?], from canonicalPeer: String) -> String {
        var client = canonicalPeer
        for hop in hops.reversed() {
            guard let hop else { return client }
            client = hop
            guard isTrusted(hop) else { return hop }
        }
        return client
    }

    /// The peer as counted: an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`, how dual-stack listeners report IPv4
    /// clients) as the plain IPv4 address it is; anything else unchanged.
    public static func canonicalPeer(_ peer: String) -> String {
        peer.hasPrefix("::ffff:") ? (IPNetwork.canonicalAddress(peer) ?? peer) : peer
    }

    /// Whether `address` (canonical text) is a trusted proxy.
    public func isTrusted(_ address: String) -> Bool {
        trustedProxies.contains { $0.contains(address) }
    }

    /// The `for=` hops of `Forwarded` values, nearest last; `nil` for a hop that is not an IP address.
    static func forwardedHops(_ values: [String]) -> [String?] {
        values.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }.map { element in
            for pair in element.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                guard parts.count == 2, trimmed(parts[0]).lowercased() == "for" else { continue }
                var value = trimmed(parts[1])
                if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
                    value = String(value.dropFirst().dropLast())
                }
                return address(ofNode: value)
            }
            return nil
        }
    }

    /// The hops of `X-Forwarded-For` values, nearest last; `nil` for a hop that is not an IP address.
    static func forwardedForHops(_ values: [String]) -> [String?] {
        values.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }.map {
            address(ofNode: trimmed($0))
        }
    }

    /// The IP of a node: `192.0.2.1`, `192.0.2.1:4711`, `[2001:db8::1]`, `[2001:db8::1]:4711` or `2001:db8::1`.
    static func address(ofNode node: String) -> String? {
        guard node.utf8.count <= 64 else { return nil }
        if node.hasPrefix("[") {
            guard let close = node.firstIndex(of: "]") else { return nil }
            let rest = node[node.index(after: close)...]
            guard rest.isEmpty || (rest.hasPrefix(":") && rest.dropFirst().allSatisfy(\.isNumber)) else { return nil }
            let inner = String(node[node.index(after: node.startIndex)..<close])
            guard inner.contains(":") else { return nil }
            return IPNetwork.canonicalAddress(inner)
        }
        let colons = node.filter { $0 == ":" }.count
        if colons == 1 {
            let parts = node.split(separator: ":", omittingEmptySubsequences: false)
            guard parts[1].allSatisfy(\.isNumber), !parts[1].isEmpty, !parts[0].contains(":") else { return nil }
            guard let address = IPNetwork.canonicalAddress(String(parts[0])), !address.contains(":") else {
                return nil
            }
            return address
        }
        return IPNetwork.canonicalAddress(node)
    }

    private static func trimmed(_ text: Substring) -> String {
        String(
            text.drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed()
        )
    }
}
