import Foundation
import Logging
import SharedModels
import Testing

@testable import JSONRPC

/// The hot methods skip `JSONEncoder`/`JSONDecoder` (``RPCDirectEncodable``, ``RPCDirectDecodable``): each conformance
/// must write exactly the encoder's bytes and accept and refuse exactly what its `Decodable` conformance does.
@Suite("Results written and params read directly match the codecs byte for byte")
struct DirectCodingContractTests {
    /// Strings that exercise every escape the encoder makes, and text it leaves alone.
    static let awkwardTexts = [
        "plain", "", "\"quoted\" and \\backslash\\", "slash/stays", "\u{8}\u{c}\n\r\t", "\u{0}\u{1}\u{1f}\u{7f}",
        "é 😀 \u{2028}\u{2029}", String(repeating: "x", count: 5000),
    ]

    /// Times with and without milliseconds (dropped, never rounded), across month, leap-day and year boundaries.
    static let times: [Date] = [
        0, 0.999, 951_782_400, 951_868_799.999, 1_709_164_800.5, 1_764_300_000.999, 4_102_444_799, 253_402_300_799,
    ].map(Date.init(timeIntervalSince1970:))

    static func notifications() -> [Store.StoredNotification] {
        var all: [Store.StoredNotification] = []
        for (index, text) in awkwardTexts.enumerated() {
            let created = times[index % times.count]
            let expires = times[(index + 3) % times.count]
            all.append(.init(notificationId: text, payload: text, createdAt: created, expiresAt: expires))
            all.append(
                .init(
                    notificationId: "n\(index)",
                    sealed: .init(deviceId: text, enc: "ZW5j", ciphertext: text), createdAt: created,
                    expiresAt: expires, readAt: times[(index + 5) % times.count]))
        }
        return all
    }

    static func written(_ value: some RPCDirectEncodable) -> String {
        var writer = JSONWriter()
        value.write(to: &writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    static func encoded(_ value: some Encodable) throws -> String {
        String(decoding: try RPCCodec.makeEncoder().encode(value), as: UTF8.self)
    }

    @Test("store.get's result: every field, escape and date as the encoder writes it")
    func storedNotification() throws {
        for notification in Self.notifications() {
            #expect(Self.written(notification) == (try Self.encoded(notification)))
        }
    }

    @Test("every date from 1970 to 9999 the writer formats itself matches the encoder, one a day and then some")
    func dates() throws {
        struct Stamp: RPCDirectEncodable {
            var at: Date
            func write(to writer: inout JSONWriter) {
                writer.beginObject()
                writer.member("at", at)
                writer.endObject()
            }
        }
        var seconds: Double = -86_400.5
        while seconds < 253_402_387_200 {
            let stamp = Stamp(at: Date(timeIntervalSince1970: seconds))
            #expect(Self.written(stamp) == (try Self.encoded(stamp)), "at \(seconds)")
            seconds += 86_400 * 37 + 3_599.75
        }
    }

    @Test("the response around a direct result is the encoder's for string, integer and null ids; others encode")
    func responseEnvelope() async throws {
        var dispatcher = RPCDispatcher()
        let notification = Self.notifications()[2]
        dispatcher.register(Store.Get.self) { _, _ in notification }
        for id in [#""a\"b""#, "7", "-9223372036854775808", "null", "1.5", "1e3"] {
            let body = #"{"jsonrpc":"2.0","method":"store.get","params":{"notificationId":"x"},"id":\#(id)}"#
            let context = RPCRequestContext(bearerToken: nil, logger: Logger(label: "test"))
            let answer = try #require(await dispatcher.handle(body: Data(body.utf8), context: context))
            let parsed = try JSONValueParser.parse(Data(body.utf8))
            let expected = try RPCCodec.makeEncoder().encode(
                RPCResponse(id: try #require(parsed["id"]), outcome: .result(notification)))
            #expect(String(decoding: answer, as: UTF8.self) == String(decoding: expected, as: UTF8.self), "id \(id)")
        }
    }

    @Test("store.get's params: the same values and the same -32602 messages as the decoder")
    func getParams() throws {
        let cases = [
            #"{"notificationId":"n1"}"#, #"{"notificationId":"n1","deviceId":"d1"}"#,
            #"{"notificationId":"n1","deviceId":null}"#, #"{"notificationId":"n1","other":[1,{"a":2}]}"#,
            #"{}"#, #"{"notificationId":null}"#, #"{"notificationId":7}"#, #"{"notificationId":["n1"]}"#,
            #"{"notificationId":"n1","deviceId":7}"#, #"{"notificationId":"n1","deviceId":{}}"#,
            #"{"notificationId":true,"deviceId":7}"#, #"["n1"]"#, #"[]"#, #"{"notificationId":"\u0000é😀"}"#,
        ]
        for text in cases {
            let params = try JSONValueParser.parse(Data(text.utf8))
            let viaDecoder = Result { () throws(RPCError) -> Store.Get.Params in
                do {
                    return try RPCDispatcher.decodeParams(Store.Get.Params.self, from: params)
                } catch let error as RPCError {
                    throw error
                } catch {
                    throw .internalError
                }
            }
            let direct = Result { () throws(RPCError) in try Store.Get.Params(params: RPCParamsReader(params)) }
            #expect(direct == viaDecoder, "params \(text)")
        }
    }
}
