import Crypto
import Foundation
import HTTPTypes
import JWTKit
import TestSupport
import Testing

@testable import DispatchService

@Suite("VAPID (RFC 8292)")
struct VAPIDTests {
    @Test("the push service gets `vapid t=<ES256 JWT>, k=<application server key>` with aud, exp 12 h ahead and sub")
    func headerAndClaims() async throws {
        try await WebPushHarness.run { harness in
            let browser = harness.mock.subscribe("alice")
            #expect(try await harness.provider.deliver(harness.job(for: browser)) == .sent)
            let push = try #require(harness.mock.received.first)
            #expect(push.problems == [])
            let expectedKey = harness.vapidKey.publicKey.x963Representation.base64URL
            #expect(harness.provider.applicationServerKey == expectedKey)
            #expect(push.vapidKey == expectedKey)
            #expect(
                push.claims
                    == MockVAPIDClaims(
                        aud: harness.mock.origin, exp: Int(harness.clock.now.timeIntervalSince1970) + 12 * 3600,
                        sub: WebPushHarness.subject))
        }
    }

    @Test("the JWT header is {typ: JWT, alg: ES256} and the signature is a raw 64-byte r‖s")
    func jwtShape() async throws {
        let key = P256.Signing.PrivateKey()
        let signer = VAPIDSigner(privateKey: key, subject: "https://ops.example.com/contact", now: { Date() })
        let header = try signer.authorization(origin: "https://push.example.net:8443")
        let match = try #require(
            header.wholeMatch(of: /vapid t=([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+), k=([A-Za-z0-9_-]+)/))
        #expect(Data(base64URL: String(match.1)) == Data(#"{"typ":"JWT","alg":"ES256"}"#.utf8))
        #expect(Data(base64URL: String(match.3))?.count == 64)
        #expect(String(match.4) == signer.publicKey)
        #expect(Data(base64URL: signer.publicKey)?.count == 65)

        let keys = JWTKeyCollection()
        await keys.add(ecdsa: try ES256PublicKey(backing: key.publicKey))
        let claims = try await keys.verify("\(match.1).\(match.2).\(match.3)", as: MockVAPIDClaims.self)
        #expect(claims.aud == "https://push.example.net:8443")
        #expect(claims.sub == "https://ops.example.com/contact")
    }

    @Test("one JWT per origin is reused until an hour before it expires")
    func cachedPerOrigin() throws {
        let clock = TestClock()
        let signer = VAPIDSigner(
            privateKey: P256.Signing.PrivateKey(), subject: "mailto:a@b.example", now: { clock.now })
        let first = try signer.authorization(origin: "https://a.example")
        let other = try signer.authorization(origin: "https://b.example")
        // ECDSA signatures are randomised: equal headers mean the cached one was reused.
        #expect(try signer.authorization(origin: "https://a.example") == first)
        #expect(other != first)
        #expect(try signer.authorization(origin: "https://b.example") == other)

        clock.advance(by: 11 * 3600 - 1)
        #expect(try signer.authorization(origin: "https://a.example") == first)
        clock.advance(by: 1)
        let renewed = try signer.authorization(origin: "https://a.example")
        #expect(renewed != first)
        #expect(try signer.authorization(origin: "https://a.example") == renewed)
    }

    @Test(
        "deliveries to one push service share a JWT; a 401 or 403 makes the next one sign a new JWT",
        arguments: [HTTPResponse.Status.unauthorized, .forbidden])
    func rejectedJWTIsReplaced(status: HTTPResponse.Status) async throws {
        try await WebPushHarness.run { harness in
            let browser = harness.mock.subscribe("bob")
            let other = harness.mock.subscribe("carol")
            #expect(try await harness.provider.deliver(harness.job(for: browser)) == .sent)
            #expect(try await harness.provider.deliver(harness.job(for: other)) == .sent)
            harness.mock.script("bob", MockReply(status: status))
            guard case .failed = try await harness.provider.deliver(harness.job(for: browser)) else {
                Issue.record("expected failed")
                return
            }
            #expect(try await harness.provider.deliver(harness.job(for: browser)) == .sent)
            let jwts = harness.mock.received.map(\.jwt)
            #expect(jwts.count == 4)
            #expect(Set(jwts[0...2]).count == 1)
            #expect(jwts[3] != jwts[0])
            #expect(harness.mock.received.allSatisfy { $0.problems.isEmpty })
        }
    }

    @Test("the cache stays bounded when subscriptions name many origins")
    func boundedCache() throws {
        let signer = VAPIDSigner(privateKey: P256.Signing.PrivateKey(), subject: "mailto:a@b.example", now: { Date() })
        let first = try signer.authorization(origin: "https://origin-0.example")
        for index in 1...VAPIDSigner.maxCachedOrigins {
            _ = try signer.authorization(origin: "https://origin-\(index).example")
        }
        // The cache was full of live entries and was cleared, so origin 0 gets a new token.
        #expect(try signer.authorization(origin: "https://origin-0.example") != first)
    }
}
