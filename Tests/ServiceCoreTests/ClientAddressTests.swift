import RPCServer
import ServiceCore
import Testing

@Suite("Client addresses: peers, trusted proxies and forwarding headers")
struct ClientAddressTests {
    @Test("CIDRs match IPv4 and IPv6, IPv4-mapped IPv6 counts as IPv4")
    func networks() throws {
        let v4 = try #require(IPNetwork("10.1.0.0/16"))
        #expect(v4.contains("10.1.255.3"))
        #expect(!v4.contains("10.2.0.1"))
        #expect(v4.contains("::ffff:10.1.2.3"))
        #expect(!v4.contains("2001:db8::1"))
        let v6 = try #require(IPNetwork("2001:db8::/32"))
        #expect(v6.contains("2001:db8:ffff::1"))
        #expect(!v6.contains("2001:db9::1"))
        #expect(try #require(IPNetwork("127.0.0.2")).contains("127.0.0.2"))
        #expect(!(try #require(IPNetwork("127.0.0.2"))).contains("127.0.0.3"))
        #expect(try #require(IPNetwork("0.0.0.0/0")).contains("203.0.113.9"))
        #expect(try #require(IPNetwork("10.1.2.3/8")).description == "10.0.0.0/8")
    }

    @Test(
        "malformed CIDRs are refused",
        arguments: [
            "", "10.0.0.0/33", "::/129", "10.0.0.0/-1", "10.0.0/8", "host", "1.2.3.4/x", "fe80::1%eth0", "10.0.0.0/ 8",
        ])
    func malformed(_ text: String) {
        #expect(IPNetwork(text) == nil)
    }

    @Test("SECUREPUSH_TRUSTED_PROXIES is read for every service; a bad entry is an error naming the variable")
    func environment() throws {
        let server = try ServiceEnvironment(["SECUREPUSH_TRUSTED_PROXIES": "10.0.0.0/8, fd00::/8,192.0.2.7"])
            .server(port: SettingCatalog.authPort)
        #expect(server.trustedProxies.map(\.description) == ["10.0.0.0/8", "fd00::/8", "192.0.2.7/32"])
        #expect(try ServiceEnvironment([:]).server(port: SettingCatalog.authPort).trustedProxies.isEmpty)
        let error = try #require(
            #expect(throws: ConfigurationError.self) {
                try ServiceEnvironment(["SECUREPUSH_TRUSTED_PROXIES": "10.0.0.0/8,10.0.0.300"]).server(
                    port: SettingCatalog.authPort)
            })
        #expect(error.description.contains("SECUREPUSH_TRUSTED_PROXIES"))
        #expect(error.description.contains("10.0.0.300"))
    }

    @Test("a spoofed X-Forwarded-For or Forwarded from an untrusted peer is ignored")
    func untrustedPeer() throws {
        let resolver = ClientAddressResolver(trustedProxies: [try #require(IPNetwork("10.0.0.0/8"))])
        #expect(resolver.clientAddress(peer: "127.0.0.2", forwarded: [], forwardedFor: ["198.51.100.1"]) == "127.0.0.2")
        #expect(
            resolver.clientAddress(peer: "127.0.0.2", forwarded: ["for=198.51.100.1"], forwardedFor: []) == "127.0.0.2")
        #expect(resolver.clientAddress(peer: "::ffff:127.0.0.2", forwarded: [], forwardedFor: []) == "127.0.0.2")
        #expect(resolver.clientAddress(peer: nil, forwarded: [], forwardedFor: ["198.51.100.1"]) == nil)
        #expect(ClientAddressResolver.canonicalPeer("::ffff:198.51.100.1") == "198.51.100.1")
        #expect(ClientAddressResolver.canonicalPeer("2001:db8::1") == "2001:db8::1")
    }

    @Test("behind trusted proxies the client is the last untrusted hop")
    func trustedChain() throws {
        let proxies = [try #require(IPNetwork("10.0.0.0/8")), try #require(IPNetwork("2001:db8::/32"))]
        let xff = ClientAddressResolver(trustedProxies: proxies)
        let resolver = ClientAddressResolver(trustedProxies: proxies, header: .forwarded)
        // A client-supplied first entry cannot win: the nearest untrusted hop does.
        #expect(
            xff.clientAddress(
                peer: "10.0.0.1", forwarded: [], forwardedFor: ["6.6.6.6, 198.51.100.7", "10.0.0.9"])
                == "198.51.100.7")
        #expect(
            resolver.clientAddress(
                peer: "2001:db8::1",
                forwarded: [#"for="[2001:db8:cafe::17]:4711";proto=https, For=192.0.2.60:8080"#],
                forwardedFor: ["203.0.113.1"]) == "192.0.2.60")
        #expect(
            resolver.clientAddress(peer: "10.0.0.1", forwarded: [#"for="[2001:DB8:cafe::17]""#], forwardedFor: [])
                == "2001:db8:cafe::17")
        // Every hop trusted: the farthest one is the client.
        #expect(xff.clientAddress(peer: "10.0.0.1", forwarded: [], forwardedFor: ["10.9.9.9"]) == "10.9.9.9")
        // No header: the proxy itself.
        #expect(xff.clientAddress(peer: "10.0.0.1", forwarded: [], forwardedFor: []) == "10.0.0.1")
    }

    @Test("only the configured forwarding header is read: a client's own Forwarded through an XFF proxy is ignored")
    func oneHeader() throws {
        let proxies = [try #require(IPNetwork("10.0.0.0/8"))]
        // nginx appends the real client to X-Forwarded-For and passes the client's Forwarded through untouched.
        let xff = ClientAddressResolver(trustedProxies: proxies)
        let spoofed = xff.resolve(peer: "10.0.0.1", forwarded: ["for=6.6.6.6"], forwardedFor: ["198.51.100.7"])
        #expect(spoofed == .init(address: "198.51.100.7", headerMismatch: false))
        // ... and the other way round for a proxy that writes Forwarded.
        let rfc = ClientAddressResolver(trustedProxies: proxies, header: .forwarded)
        #expect(
            rfc.resolve(peer: "10.0.0.1", forwarded: ["for=198.51.100.7"], forwardedFor: ["6.6.6.6"])
                == .init(address: "198.51.100.7", headerMismatch: false))
        // A trusted proxy's request with only the other header: the proxy itself is the client, and it is flagged.
        #expect(
            xff.resolve(peer: "10.0.0.1", forwarded: ["for=6.6.6.6"], forwardedFor: [])
                == .init(address: "10.0.0.1", headerMismatch: true))
        // From an untrusted peer nothing is read or flagged.
        #expect(
            xff.resolve(peer: "192.0.2.1", forwarded: ["for=6.6.6.6"], forwardedFor: [])
                == .init(address: "192.0.2.1", headerMismatch: false))
    }

    @Test("SECUREPUSH_FORWARDED_HEADER takes x-forwarded-for (the default) or forwarded; anything else is refused")
    func forwardedHeaderSetting() throws {
        #expect(try ServiceEnvironment([:]).server(port: SettingCatalog.authPort).forwardedHeader == .xForwardedFor)
        #expect(
            try ServiceEnvironment(["SECUREPUSH_FORWARDED_HEADER": "Forwarded"]).server(
                port: SettingCatalog.authPort
            ).forwardedHeader == .forwarded)
        let error = try #require(
            #expect(throws: ConfigurationError.self) {
                try ServiceEnvironment(["SECUREPUSH_FORWARDED_HEADER": "x-real-ip"]).server(
                    port: SettingCatalog.authPort)
            })
        #expect(error.description.hasPrefix("SECUREPUSH_FORWARDED_HEADER"))
    }

    @Test(
        "a malformed or unknown hop ends the walk at the nearest trusted proxy",
        arguments: [
            "unknown", "_hidden", "garbage!", "198.51.100.7:port", "[2001:db8::1", "1.2.3.4.5", "",
        ])
    func malformedHops(_ hop: String) throws {
        let resolver = ClientAddressResolver(trustedProxies: [try #require(IPNetwork("10.0.0.0/8"))])
        #expect(
            resolver.clientAddress(peer: "10.0.0.1", forwarded: [], forwardedFor: ["198.51.100.7, \(hop), 10.0.0.5"])
                == "10.0.0.5")
        let rfc = ClientAddressResolver(trustedProxies: [try #require(IPNetwork("10.0.0.0/8"))], header: .forwarded)
        #expect(rfc.clientAddress(peer: "10.0.0.1", forwarded: ["for=\(hop)"], forwardedFor: []) == "10.0.0.1")
    }
}
