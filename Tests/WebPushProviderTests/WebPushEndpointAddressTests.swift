import Foundation
import SharedModels
import TestSupport
import Testing

@testable import DispatchService

@Suite("Web Push endpoints on this machine or private networks (server-side request forgery)")
struct WebPushEndpointAddressTests {
    @Test(
        "loopback, private, link-local, shared, multicast and unspecified addresses are not public",
        arguments: [
            "127.0.0.1", "127.9.9.9", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254",
            "100.64.0.1", "0.0.0.0", "224.0.0.1", "255.255.255.255", "::1", "::", "fe80::1", "fd00::1", "fc00::2",
            "ff02::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1", "[::1]",
            // issue 23: NAT64 and 6to4 addresses embedding a private IPv4, local-use NAT64, Teredo, benchmarking
            "64:ff9b::7f00:1", "64:ff9b::a9fe:a9fe", "64:ff9b::10.0.0.1", "64:ff9b:1::808:808", "2002:7f00:1::1",
            "2002:c0a8:101::", "2001:0:4136:e378:8000:63bf:3fff:fdd2", "198.18.0.1", "198.19.255.255",
        ])
    func nonPublic(address: String) {
        #expect(OutboundAddresses.isNonPublic(address))
    }

    @Test(
        "public addresses and host names are not flagged by the literal check",
        arguments: [
            "8.8.8.8", "172.32.0.1", "192.169.0.1", "100.128.0.1", "2001:4860:4860::8888", "::ffff:8.8.8.8",
            "push.example.net", "64:ff9b::808:808", "2002:808:808::1", "198.20.0.1", "198.17.255.255",
        ])
    func publicAddress(address: String) {
        #expect(!OutboundAddresses.isNonPublic(address))
    }

    @Test("without an allow-list, a subscription on a loopback address or localhost is refused at registration")
    func refusedAtRegistration() async throws {
        try await WebPushHarness.run(allowedHosts: nil) { harness in
            let onLoopback = harness.mock.subscribe("mallory")  // https://127.0.0.1:<port>/push/mallory
            let error = try #require(throws: DispatchError.self) {
                try harness.provider.validateToken(onLoopback.token)
            }
            #expect(error.rpcError.data == .object(["field": "token"]))
            #expect(error.rpcError.message.contains("'127.0.0.1' is not a public address"))
            let onLocalhost = TestSubscription(endpoint: "https://localhost:8443/push/1")
            #expect(throws: DispatchError.self) { try harness.provider.validateToken(onLocalhost.token) }
            #expect(harness.mock.received.isEmpty)
        }
    }

    @Test("without an allow-list, a stored subscription whose host resolves to loopback is never contacted")
    func refusedAtDelivery() async throws {
        try await WebPushHarness.run(allowedHosts: nil) { harness in
            // A name, not a literal: only resolving it shows where it points (as a rebinding DNS name would).
            let port = try #require(URL(string: harness.mock.origin)?.port)
            let browser = TestSubscription(endpoint: "https://localhost:\(port)/push/mallory")
            let stored = try WebPushSubscription(token: browser.token).canonicalToken
            let job = DeliveryJob(
                sequence: 1, notificationID: "ntf-1", deviceID: "dev-1", platform: .webpush, deviceToken: stored,
                status: .queued, attempts: 0, expiresAt: harness.clock.now.addingTimeInterval(60))
            #expect(
                await harness.provider.deliver(job)
                    == .failed(reason: "endpoint host 'localhost' resolves to a non-public address"))
            #expect(harness.mock.received.isEmpty)
        }
    }

    @Test("an allow-listed host may be on a private address (a push service run by the operator)")
    func allowListedPrivateHost() async throws {
        try await WebPushHarness.run(allowedHosts: ["127.0.0.1"]) { harness async throws in
            let browser = harness.mock.subscribe("trent")
            #expect(try await harness.provider.deliver(harness.job(for: browser)) == .sent)
            #expect(harness.mock.received.count == 1)
        }
    }
}
