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
    @Test("push.send's result (to one and to many): every field and escape as the encoder writes it")
    func sendResults() throws {
        let platforms: [Platform] = [.direct, .apns, .fcm, .wns, .webpush, Platform(rawValue: "x\"y")]
        let statuses: [DeliveryStatus] = [.queued, .sent, .acknowledged, .retrying, DeliveryStatus(rawValue: "\u{1}")]
        for (index, text) in Self.awkwardTexts.enumerated() {
            let deliveries = (0..<(index % 4)).map {
                Push.Send.Delivery(
                    deviceId: Self.awkwardTexts[($0 + index) % Self.awkwardTexts.count],
                    platform: platforms[($0 + index) % platforms.count],
                    status: statuses[($0 + index) % statuses.count])
            }
            let one = Push.Send.Result(notificationId: text, deliveries: deliveries)
            #expect(Self.written(one) == (try Self.encoded(one)))
            #expect(one.directJSON() == (try Self.encoded(one)))
            let many = Push.SendToMany.Result(
                notifications: (0..<(index % 3)).map {
                    Push.RecipientNotification(recipientId: text, notificationId: Self.awkwardTexts[$0])
                },
                unknownRecipientIds: Array(Self.awkwardTexts.prefix(index % 3)))
            #expect(Self.written(many) == (try Self.encoded(many)))
        }
    }

    @Test("{} for the methods that answer nothing, and push.notify's event data, as the encoder writes them")
    func emptyAndNotify() throws {
        #expect(Self.written(Empty()) == (try Self.encoded(Empty())))
        for text in Self.awkwardTexts {
            for traceparent in [nil, text] {
                let params = Push.Notify.Params(notificationId: text, traceparent: traceparent)
                #expect(Self.written(params) == (try Self.encoded(params)))
            }
        }
    }

    @Test("devices.ack's params: the same values and the same -32602 messages as the decoder")
    func ackParams() throws {
        let cases = [
            #"{"deviceId":"d1","notificationId":"n1"}"#, #"{"deviceId":"d1","notificationId":"n1","extra":{}}"#,
            #"{}"#, #"{"deviceId":"d1"}"#, #"{"notificationId":"n1"}"#, #"{"deviceId":null,"notificationId":"n1"}"#,
            #"{"deviceId":"d1","notificationId":null}"#, #"{"deviceId":7,"notificationId":"n1"}"#,
            #"{"deviceId":"d1","notificationId":[]}"#, #"{"deviceId":7,"notificationId":8}"#,
            #"{"deviceId":null,"notificationId":8}"#, #"["d1","n1"]"#, #"{"deviceId":"\u0000é","notificationId":""}"#,
        ]
        for text in cases {
            let params = try JSONValueParser.parse(Data(text.utf8))
            #expect(
                Result { () throws(RPCError) in try Devices.Ack.Params(params: RPCParamsReader(params)) }
                    == Self.decoded(Devices.Ack.Params.self, from: params),
                "params \(text)")
        }
    }

    @Test("store.put and store.putMany's params, and the request around them, as the encoder writes them")
    func putParamsAndRequest() throws {
        var items: [Store.Put.Params] = []
        for (index, text) in Self.awkwardTexts.enumerated() {
            let flags: [Bool?] = [nil, true, false]
            let item = Store.Put.Params(
                recipientId: text, payload: text, ttlSeconds: [nil, 0, 60, Int.max, -1][index % 5],
                recipientKeys: index % 3 == 0
                    ? nil : (0..<(index % 4)).map { .init(deviceId: Self.awkwardTexts[$0], publicKey: text) },
                sealedOnly: flags[index % 3], readOnce: flags[(index + 1) % 3],
                idempotencyKey: index % 2 == 0 ? nil : text, sendAt: index % 2 == 0 ? Self.times[index % 8] : nil)
            items.append(item)
            #expect(Self.written(item) == (try Self.encoded(item)))
        }
        let many = Store.PutMany.Params(items: items)
        #expect(Self.written(many) == (try Self.encoded(many)))
        #expect(Self.written(Store.PutMany.Params(items: [])) == (try Self.encoded(Store.PutMany.Params(items: []))))
        for id: JSONValue? in [.string("a\"b"), .int(7), .int(.min), nil] {
            let request = RPCRequestEnvelope(method: Store.PutMany.name, params: many, id: id)
            let direct = try #require(request.directlyEncoded())
            #expect(direct == (try RPCCodec.makeEncoder().encode(request)), "id \(String(describing: id))")
        }
        // Ids the writer does not take, and params that are not direct, go through the encoder.
        #expect(RPCRequestEnvelope(method: "m", params: many, id: .double(1.5)).directlyEncoded() == nil)
        let notDirect = RPCRequestEnvelope(method: "m", params: Store.Get.Params(notificationId: "n"), id: nil)
        #expect(notDirect.directlyEncoded() == nil)
    }

    /// What the `Decodable` path makes of `params`: the value, or the ``RPCError`` a caller would get.
    static func decoded<P: Decodable>(_ type: P.Type, from params: JSONValue) -> Result<P, RPCError> {
        Result { () throws(RPCError) -> P in
            do {
                return try RPCDispatcher.decodeParams(P.self, from: params)
            } catch let error as RPCError {
                throw error
            } catch {
                throw .internalError
            }
        }
    }
}
