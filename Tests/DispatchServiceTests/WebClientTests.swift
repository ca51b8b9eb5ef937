import Crypto
import DispatchService
import Foundation
import RPCServer
import SharedModels
import TestSupport
import Testing

/// What browsers need of push-dispatch (issue 26): HTTP/1.1 on the cleartext port, CORS for allowed origins, the
/// browser SDK and the web inbox served with their CSP, and `devices.webPushKey`.
@Suite("push-dispatch for browsers")
struct WebClientTests {
    static let inboxOrigin = "http://127.0.0.1:18083"

    /// A configuration allowing `inboxOrigin`, with the browser-facing URLs of a deployment behind TLS.
    static func configuration() -> DispatchConfiguration {
        var configuration = DispatchHarness.configuration()
        configuration.server.cors = CORSPolicy(origins: [inboxOrigin])
        configuration.inbox = WebInboxConfiguration(
            authURL: "https://auth.example.com:8443/base", storeURL: "https://store.example.com")
        return configuration
    }

    /// A curl call's status, headers (lowercased names) and body.
    static func curl(_ arguments: [String]) async throws -> (status: Int, headers: [String: String], body: String) {
        let headerFile = TemporaryDirectory.processRootURL.appendingPathComponent("headers-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: headerFile) }
        let result = try await Curl.run(["--dump-header", headerFile] + arguments)
        var headers: [String: String] = [:]
        let text = (try? String(contentsOfFile: headerFile, encoding: .utf8)) ?? ""
        for line in text.split(whereSeparator: \.isNewline) {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        return (result.status, headers, result.body)
    }

    @Test("the inbox is served over HTTP/1.1 with a strict CSP naming the services' origins; /inbox redirects")
    func inbox() async throws {
        let harness = try await DispatchHarness(configuration: Self.configuration())
        try await RunningDispatch.with(harness) { port in
            let base = "http://127.0.0.1:\(port)"
            let page = try await Self.curl(["--http1.1", "\(base)/inbox/"])
            #expect(page.status == 200)
            #expect(page.headers["content-type"] == "text/html; charset=utf-8")
            let csp = try #require(page.headers["content-security-policy"])
            #expect(csp.contains("script-src 'self'") && !csp.contains("unsafe-inline") && !csp.contains("unsafe-eval"))
            #expect(csp.contains("connect-src 'self' https://auth.example.com:8443 https://store.example.com"))
            #expect(csp.contains("frame-ancestors 'none'") && csp.contains("default-src 'none'"))
            #expect(page.headers["x-content-type-options"] == "nosniff")
            #expect(page.body.contains("<html"))

            let redirect = try await Self.curl(["--http1.1", "\(base)/inbox"])
            #expect(redirect.status == 308 && redirect.headers["location"] == "/inbox/")

            let config = try await Self.curl(["--http2-prior-knowledge", "\(base)/inbox/config.json"])
            #expect(config.status == 200)
            let object = try JSONSerialization.jsonObject(with: Data(config.body.utf8)) as? [String: String]
            #expect(
                object == ["authURL": "https://auth.example.com:8443/base", "storeURL": "https://store.example.com"])

            #expect(try await Self.curl(["--http1.1", "-X", "POST", "\(base)/inbox/"]).status == 404)
            #expect(try await Self.curl(["--http1.1", "\(base)/inbox/no-such-file.js"]).status == 404)
            #expect(
                try await Self.curl(["--http1.1", "--path-as-is", "\(base)/sdk/../inbox/index.html"]).status == 404)
        }
    }

    @Test("the SDK is served as JavaScript with an ETag; a matching If-None-Match gets 304 and no body")
    func sdk() async throws {
        let harness = try await DispatchHarness(configuration: Self.configuration())
        try await RunningDispatch.with(harness) { port in
            let url = "http://127.0.0.1:\(port)/sdk/securepush.js"
            let script = try await Self.curl(["--http1.1", url])
            #expect(script.status == 200)
            #expect(script.headers["content-type"] == "text/javascript; charset=utf-8")
            #expect(script.headers["cache-control"] == "no-cache")
            #expect(script.body.contains("export"))
            let etag = try #require(script.headers["etag"])
            let again = try await Self.curl(["--http1.1", "-H", "If-None-Match: \(etag)", url])
            #expect(again.status == 304 && again.body.isEmpty)
            let changed = try await Self.curl(["--http1.1", "-H", #"If-None-Match: "other""#, url])
            #expect(changed.status == 200 && changed.body == script.body)
        }
    }

    @Test("an allowed origin's preflight gets 204 with our methods and headers; another origin's gets 403")
    func preflight() async throws {
        let harness = try await DispatchHarness(configuration: Self.configuration())
        try await RunningDispatch.with(harness) { port in
            let url = "http://127.0.0.1:\(port)/rpc"
            let allowed = try await Self.curl([
                "--http1.1", "-X", "OPTIONS", "-H", "Origin: \(Self.inboxOrigin)",
                "-H", "Access-Control-Request-Method: POST",
                "-H", "Access-Control-Request-Headers: authorization, content-type, securepush-device-proof", url,
            ])
            #expect(allowed.status == 204)
            #expect(allowed.headers["access-control-allow-origin"] == Self.inboxOrigin)
            #expect(
                allowed.headers["access-control-allow-headers"]
                    == "Authorization, Content-Type, SecurePush-Device-Proof, traceparent, tracestate")
            #expect(allowed.headers["access-control-allow-methods"]?.contains("POST") == true)
            let other = try await Self.curl([
                "--http1.1", "-X", "OPTIONS", "-H", "Origin: https://evil.example",
                "-H", "Access-Control-Request-Method: POST", url,
            ])
            #expect(other.status == 403 && other.headers["access-control-allow-origin"] == nil)
        }
    }

    @Test("RPC answers and the event stream carry CORS headers for an allowed origin; other origins' POSTs are refused")
    func corsOnAnswers() async throws {
        let harness = try await DispatchHarness(configuration: Self.configuration())
        let device = try await harness.registerDevice(user: "ada")
        let token = try await harness.signer.userToken("ada")
        try await RunningDispatch.with(harness) { port in
            let url = "http://127.0.0.1:\(port)/rpc"
            let call = #"{"jsonrpc":"2.0","id":1,"method":"devices.list","params":{}}"#
            for version in ["--http1.1", "--http2-prior-knowledge"] {
                let allowed = try await Self.curl([
                    version, "-H", "Origin: \(Self.inboxOrigin)", "-H", "Content-Type: application/json",
                    "-H", "Authorization: Bearer \(token)", "--data-binary", call, url,
                ])
                #expect(allowed.status == 200 && allowed.body.contains(device))
                #expect(allowed.headers["access-control-allow-origin"] == Self.inboxOrigin)
                #expect(allowed.headers["vary"] == "Origin")
                let other = try await Self.curl([
                    version, "-H", "Origin: https://evil.example", "-H", "Content-Type: application/json",
                    "-H", "Authorization: Bearer \(token)", "--data-binary", call, url,
                ])
                // A page of another origin cannot make the service act: refused before anything runs.
                #expect(other.status == 403 && other.headers["access-control-allow-origin"] == nil)
                #expect(other.body.contains("is not allowed (SECUREPUSH_CORS_ORIGINS)"))
                // The service's own pages (the inbox calling push-dispatch) are not cross-origin.
                let own = try await Self.curl([
                    version, "-H", "Origin: http://127.0.0.1:\(port)", "-H", "Content-Type: application/json",
                    "-H", "Authorization: Bearer \(token)", "--data-binary", call, url,
                ])
                #expect(own.status == 200 && own.body.contains(device))
            }
            // A typeless body (a `no-cors` fetch of a Blob) from another origin, and an opaque `null` origin.
            for origin in ["https://evil.example", "null"] {
                let blind = try await Self.curl([
                    "--http1.1", "-H", "Origin: \(origin)", "-H", "Content-Type:", "--data-binary", call, url,
                ])
                #expect(blind.status == 403, "\(origin)")
            }
            // A streaming answer gets them too (the headers go out before the first event).
            let stream = try await Self.curl([
                "--http1.1", "--max-time", "1", "-H", "Origin: \(Self.inboxOrigin)",
                "-H", "Authorization: Bearer \(token)", "http://127.0.0.1:\(port)/devices/\(device)/events",
            ])
            #expect(stream.headers["access-control-allow-origin"] == Self.inboxOrigin)
            #expect(stream.headers["content-type"]?.hasPrefix("text/event-stream") == true)
        }
    }

    @Test(
        "devices.webPushKey needs no token: the VAPID key when Web Push is on, -32004 when off, -32602 for a bad or unknown appId"
    )
    func webPushKey() async throws {
        let off = try await DispatchHarness()
        let missing = await expectRPCError { _ = try await off.client.call(Devices.WebPushKey.self, .init()) }
        #expect(missing?.code == RPCErrorCode.notFound)
        #expect(missing?.message.contains("Web Push is not configured") == true)

        let vapid = P256.Signing.PrivateKey()
        let provider = try WebPushProvider(
            configuration: WebPushConfiguration(
                vapidPrivateKey: vapid, vapidSubject: "mailto:ops@example.com", allowedHosts: ["push.example.com"]),
            logger: .quiet)
        let on = try await DispatchHarness(providers: [provider])
        let key = try await on.client.call(Devices.WebPushKey.self, .init()).vapidPublicKey
        #expect(Data(base64URLEncoded: key) == vapid.publicKey.x963Representation)
        #expect(try await on.client.call(Devices.WebPushKey.self, .init(appId: "default")).vapidPublicKey == key)
        let badApp = await expectRPCError {
            _ = try await on.client.call(Devices.WebPushKey.self, .init(appId: "Retail Web!"))
        }
        let unknownApp = await expectRPCError {
            _ = try await on.client.call(Devices.WebPushKey.self, .init(appId: "retail-web"))
        }
        await provider.shutdown()
        #expect(badApp?.code == RPCErrorCode.invalidParams)
        #expect(badApp?.message.contains("'appId'") == true)
        #expect(unknownApp?.code == RPCErrorCode.invalidParams)
        #expect(unknownApp?.data == .object(["field": "appId"]))
    }
}
