import Foundation
import TestSupport
import Testing

@Suite("The wire, as curl sees it")
struct WireTests {
    private static let call = #"{"jsonrpc":"2.0","method":"auth.keys","params":{},"id":7}"#

    @Test("cleartext services speak HTTP/2 with prior knowledge")
    func cleartextPriorKnowledge() async throws {
        try await TestStack.with(.cleartext) { stack in
            let result = try await Curl.run([
                "--http2-prior-knowledge", "-H", "content-type: application/json", "-d", Self.call,
                "\(stack.stack.authURL)/rpc",
            ])
            #expect(result.status == 200)
            #expect(result.httpVersion == "2")
            #expect(result.body.contains(#""id":7"#))
            #expect(result.body.contains(#""kty":"EC""#))
        }
    }

    @Test("TLS services negotiate h2 by ALPN and still answer HTTP/1.1 clients")
    func tlsAlpnAndFallback() async throws {
        try await TestStack.with(.tls) { stack in
            let ca = try #require(stack.certificates?.caCertificatePath)
            for url in [stack.stack.authURL, stack.stack.storeURL, stack.stack.dispatchURL] {
                let h2 = try await Curl.run(["--http2", "--cacert", ca, "\(url)/health"])
                #expect(h2.status == 200)
                #expect(h2.httpVersion == "2")
                let h1 = try await Curl.run([
                    "--http1.1", "--cacert", ca, "-H", "content-type: application/json", "-d", Self.call, "\(url)/rpc",
                ])
                #expect(h1.httpVersion == "1.1")
                #expect(h1.status == 200)
            }
        }
    }

    @Test("every service reports health as JSON")
    func health() async throws {
        try await TestStack.with(.cleartext) { stack in
            for (url, name) in [
                (stack.stack.authURL, "auth"), (stack.stack.storeURL, "notification-store"),
                (stack.stack.dispatchURL, "push-dispatch"),
            ] {
                // A service reports `unavailable` until it is ready (push-dispatch: until its first fetch of auth's
                // keys, which a loaded machine may take seconds to finish): wait, bounded, for it to be ready.
                var result = try await Curl.run(["--http2-prior-knowledge", "\(url)/health"])
                _ = try await eventually(timeout: .seconds(30)) {
                    result = try await Curl.run(["--http2-prior-knowledge", "\(url)/health"])
                    return result.status == 200
                }
                #expect(result.status == 200)
                #expect(result.body.contains(#""service":"\#(name)""#))
                #expect(result.body.contains(#""status":"ok""#))
            }
        }
    }

    @Test("an oversized body gets HTTP 413, a wrong content type 415, and an all-notification batch 204")
    func limitsOverHTTP() async throws {
        try await TestStack.with(.cleartext) { stack in
            let url = "\(stack.stack.storeURL)/rpc"
            let big =
                Data(#"{"jsonrpc":"2.0","method":"store.get","params":{"notificationId":""#.utf8)
                + Data(repeating: UInt8(ascii: "a"), count: 2 << 20) + Data(#""},"id":1}"#.utf8)
            let tooLarge = try await Curl.run(
                ["--http2-prior-knowledge", "-H", "content-type: application/json", url], body: big)
            #expect(tooLarge.status == 413)
            #expect(tooLarge.body.contains("-32600"))
            let wrongType = try await Curl.run([
                "--http2-prior-knowledge", "-H", "content-type: text/plain", "-d", Self.call, url,
            ])
            #expect(wrongType.status == 415)
            let notifications = #"[{"jsonrpc":"2.0","method":"store.list"},{"jsonrpc":"2.0","method":"nope"}]"#
            let empty = try await Curl.run([
                "--http2-prior-knowledge", "-H", "content-type: application/json", "-d", notifications, url,
            ])
            #expect(empty.status == 204)
            #expect(empty.body.isEmpty)
        }
    }
}
