import DispatchService
import Foundation
import ServiceCore
import Testing

@Suite("WNS channel URIs")
struct WNSChannelURITests {
    /// A provider that never sends: validation needs no server.
    func withProvider(allowAnyHost: Bool = false, _ body: (WNSProvider) throws -> Void) async throws {
        let configuration = try WNSConfiguration(clientID: "id", clientSecret: "secret", allowAnyHost: allowAnyHost)
        let provider = try WNSProvider(configuration: configuration, logger: .quiet)
        let result = Result { try body(provider) }
        await provider.shutdown()
        try result.get()
    }

    @Test(
        "channel URIs on notify.windows.com are stored as given",
        arguments: [
            "https://db5.notify.windows.com/?token=AwYAAAD%2bOHp6XwK3Nt2cdfN5YAs%3d",
            "https://wns2-by3p.notify.windows.com/w/?token=BQYAAAA",
            "https://CLOUD.Notify.Windows.com/w/?token=x",
        ]
    )
    func accepted(uri: String) async throws {
        try await withProvider { provider in
            let stored = try provider.validateToken(uri)
            #expect(stored == uri)
            #expect(provider.platform == .wns)
        }
    }

    @Test(
        "anything else is refused naming token",
        arguments: [
            nil, "", "http://db5.notify.windows.com/?token=x", "https://notify.windows.com/?token=x",
            "https://evil.example/?token=x", "https://db5.notify.windows.com.evil.example/?token=x",
            "https://db5.notify.windows.com:8443/?token=x", "https://user:pw@db5.notify.windows.com/?token=x",
            "https://db5.notify.windows.com/?token=a b", "https://127.0.0.1/w/?token=x", "not a url",
            "https://db5.notify.windows.com/?token=" + String(repeating: "x", count: 2048),
        ] as [String?]
    )
    func refused(uri: String?) async throws {
        try await withProvider { provider in
            let error = #expect(throws: DispatchError.self) { try provider.validateToken(uri) }
            #expect(error?.rpcError.message.contains("token") == true)
        }
    }

    @Test("SECUREPUSH_WNS_ALLOW_ANY_HOST accepts any https host, still not plain http")
    func anyHost() async throws {
        try await withProvider(allowAnyHost: true) { provider in
            let stored = try provider.validateToken("https://127.0.0.1:8443/w/?token=x")
            #expect(stored == "https://127.0.0.1:8443/w/?token=x")
            #expect(throws: DispatchError.self) { try provider.validateToken("http://127.0.0.1:8443/w/?token=x") }
        }
    }
}
