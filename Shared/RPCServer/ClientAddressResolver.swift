/// Decides which address a request comes from: the socket's peer, or, when the peer is a trusted proxy, the last
/// untrusted hop of `Forwarded` (RFC 7239) or else `X-Forwarded-For`.
///
/// Headers from an untrusted peer are ignored (anyone can send them). The hops are walked from the nearest: each
/// trusted one is skipped, the first untrusted one is the client. A hop that is not an IP address (`unknown`, an
/// obfuscated name, garbage) ends the walk at the nearest trusted proxy, which is then taken as the client: a broken
/// header never lets a caller choose its own address.
public struct ClientAddressResolver: Sendable {
    /// The proxies whose forwarding headers are believed.
    public let trustedProxies: [IPNetwork]

    public init(trustedProxies: [IPNetwork]) {
        self.trustedProxies = trustedProxies
    }

    /// The client address for a request from `peer` (textual IP, `nil` when unknown) carrying these header values.
    /// - Parameters:
    ///   - forwarded: every `Forwarded` field value, in order.
    ///   - forwardedFor: every `X-Forwarded-For` field value, in order (used when there is no `Forwarded`).
    public func clientAddress(peer: String?, forwarded: [String], forwardedFor: [String]) -> String? {
        guard let peer else { return nil }
        let canonicalPeer = IPNetwork.canonicalAddress(peer) ?? peer
        guard isTrusted(canonicalPeer) else { return canonicalPeer }
        let hops: [String?] =
            forwarded.isEmpty
            ? Self.forwardedForHops(forwardedFor) : Self.forwardedHops(forwarded)
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
