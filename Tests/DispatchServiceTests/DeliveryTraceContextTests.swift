import Foundation
import NIOCore
import SharedModels
import Testing

@testable import DispatchService

/// A traced send's W3C trace context goes to the device with the id; an untraced one changes nothing on the wire.
@Suite("Trace context with the pushed id")
struct DeliveryTraceContextTests {
    static let traceParent = TraceParent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")!

    static func job(traced: Bool) -> DeliveryJob {
        DeliveryJob(
            sequence: 1, notificationID: "c0ffee00-1234-4abc-8def-0123456789ab", deviceID: "d-1", platform: .direct,
            deviceToken: nil, status: .queued, attempts: 0, expiresAt: Date(timeIntervalSince1970: 2_000_000_000),
            traceParent: traced ? traceParent : nil)
    }

    @Test("the direct channel's push.notify event carries the send's traceparent, and only when traced")
    func directEvent() throws {
        var tracedEvent = ByteBuffer()
        DirectEventStream.write(Self.job(traced: true), to: &tracedEvent)
        let traced = String(buffer: tracedEvent)
        #expect(traced.contains(#","traceparent":"\#(Self.traceParent)""#))
        var plainEvent = ByteBuffer()
        DirectEventStream.write(Self.job(traced: false), to: &plainEvent)
        let plain = String(buffer: plainEvent)
        #expect(
            plain
                == "id: c0ffee00-1234-4abc-8def-0123456789ab\nevent: push.notify\ndata: "
                + #"{"jsonrpc":"2.0","method":"push.notify","params":{"notificationId":"c0ffee00-1234-4abc-8def-0123456789ab"}}"#
                + "\n\n")
    }

    @Test("the event's data is the encoder's push.notify notification byte for byte, ids and trace context escaped")
    func eventDataMatchesTheEncoder() throws {
        for id in ["c0ffee00-1234-4abc-8def-0123456789ab", "", "quote\" back\\slash/", "\u{1}\n\u{7f} é 😀"] {
            for traceparent in [nil, Self.traceParent.description, "\"\u{0}"] {
                let params = Push.Notify.Params(notificationId: id, traceparent: traceparent)
                let envelope = RPCRequestEnvelope(method: Push.Notify.name, params: params, id: nil)
                let encoded = String(decoding: try RPCCodec.makeEncoder().encode(envelope), as: UTF8.self)
                #expect(DirectEventStream.data(of: params) == encoded, "id \(id)")
            }
        }
    }

    @Test("the APNs payload and the FCM data map add a traceparent field beside secureId, and only when traced")
    func providerPayloads() throws {
        let apns = APNsPayload(
            notificationID: "n-1", mode: .background, alertTitle: "", alertBody: "", traceParent: Self.traceParent)
        #expect(
            String(decoding: apns.encoded(), as: UTF8.self)
                == #"{"aps":{"content-available":1},"secureId":"n-1","traceparent":"\#(Self.traceParent)"}"#)
        let untraced = APNsPayload(notificationID: "n-1", mode: .background, alertTitle: "", alertBody: "")
        #expect(
            String(decoding: untraced.encoded(), as: UTF8.self) == #"{"aps":{"content-available":1},"secureId":"n-1"}"#)

        let fcm = FCMSendRequest(
            registrationToken: "token", notificationID: "n-1", ttlSeconds: 60, traceParent: Self.traceParent)
        #expect(fcm.message.data == ["secureId": "n-1", "traceparent": Self.traceParent.description])
        #expect(
            FCMSendRequest(registrationToken: "token", notificationID: "n-1", ttlSeconds: 60).message.data == [
                "secureId": "n-1"
            ])
    }
}
