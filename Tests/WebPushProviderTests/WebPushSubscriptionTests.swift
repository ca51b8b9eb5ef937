import Crypto
import Foundation
import SharedModels
import Testing

@testable import DispatchService

@Suite("Web Push subscriptions as device tokens")
struct WebPushSubscriptionTests {
    static let p256dh = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
    static let auth = "BTBZMqHH6r4Tts7J_aSIgg"

    static func token(
        endpoint: String = "https://push.example.net/wpush/v2/abc", p256dh: String = p256dh,
        auth: String = auth
    ) -> String {
        #"{"endpoint":"\#(endpoint)","expirationTime":null,"keys":{"p256dh":"\#(p256dh)","auth":"\#(auth)"}}"#
    }

    @Test("a browser's subscription JSON is stored in one canonical form")
    func canonicalForm() throws {
        let stored = try WebPushSubscription(token: Self.token()).canonicalToken
        #expect(
            stored
                == #"{"endpoint":"https://push.example.net/wpush/v2/abc","keys":{"auth":"BTBZMqHH6r4Tts7J_aSIgg","p256dh":"\#(Self.p256dh)"}}"#
        )
        #expect(try WebPushSubscription(token: stored).canonicalToken == stored)
    }

    @Test("keys in padded standard base64 are stored as unpadded base64url")
    func standardBase64Keys() throws {
        let p256dh = try #require(Data(base64URL: Self.p256dh)).base64EncodedString()
        let auth = try #require(Data(base64URL: Self.auth)).base64EncodedString()
        #expect(p256dh.contains("+") || p256dh.contains("/") || auth.hasSuffix("="))
        let stored = try WebPushSubscription(token: Self.token(p256dh: p256dh, auth: auth)).canonicalToken
        #expect(stored == (try WebPushSubscription(token: Self.token()).canonicalToken))
    }

    @Test(
        "the VAPID audience is the endpoint's origin",
        arguments: [
            ("https://push.example.net/wpush/v2/abc", "https://push.example.net"),
            ("https://Push.Example.NET:443/x", "https://push.example.net"),
            ("https://push.example.net:8443/x?y=1", "https://push.example.net:8443"),
            ("https://[::1]:9000/push/x", "https://[::1]:9000"),
        ])
    func origin(endpoint: String, origin: String) throws {
        #expect(try WebPushSubscription(token: Self.token(endpoint: endpoint)).origin == origin)
    }

    static let offCurvePoint = Data([0x04] + [UInt8](repeating: 0x01, count: 64)).base64URL
    static let compressedPoint = Data([0x02] + [UInt8](repeating: 0x01, count: 32)).base64URL

    @Test(
        "a malformed subscription is refused with -32602 naming token",
        arguments: [
            (nil, "is required"),
            ("", "PushSubscription JSON"),
            ("not json", "PushSubscription JSON"),
            ("[]", "PushSubscription JSON"),
            (#"{"keys":{"p256dh":"\#(p256dh)","auth":"\#(auth)"}}"#, "no 'endpoint'"),
            (#"{"endpoint":"https://push.example.net/x"}"#, "no 'keys'"),
            (#"{"endpoint":"https://push.example.net/x","keys":{"p256dh":"\#(p256dh)"}}"#, "no 'keys.auth'"),
            (#"{"endpoint":42,"keys":{"p256dh":"\#(p256dh)","auth":"\#(auth)"}}"#, "'endpoint' has the wrong type"),
            (token(endpoint: "http://push.example.net/x"), "must be an https URL"),
            (token(endpoint: "push.example.net/x"), "must be an https URL"),
            (token(endpoint: "https:///x"), "no host"),
            (token(endpoint: "https://user:pw@push.example.net/x"), "credentials"),
            (token(endpoint: "https://push.example.net/x#frag"), "fragment"),
            (token(p256dh: "not base64!"), "keys.p256dh is not base64url"),
            (token(p256dh: compressedPoint), "uncompressed P-256 point (65 bytes), got 33 bytes"),
            (token(p256dh: offCurvePoint), "not a point on the P-256 curve"),
            (token(auth: "AAAAAAAAAAAAAAAAAAAA"), "keys.auth must be 16 bytes, got 15"),
            (token(auth: "***"), "keys.auth is not base64url"),
        ] as [(String?, String)])
    func refused(token: String?, reason: String) throws {
        let error = try #require(throws: DispatchError.self) { try WebPushSubscription(token: token) }
        #expect(error.rpcError.code == RPCErrorCode.invalidParams)
        #expect(error.rpcError.data == .object(["field": "token"]))
        #expect(error.rpcError.message.contains(reason), "\(error.rpcError.message)")
    }
}
