import Foundation
import JSONRPC
import SharedModels
import Testing

/// W3C Trace Context `traceparent`: what push-dispatch sends with an id and the device echoes on `store.get`.
@Suite("traceparent")
struct TraceParentTests {
    static let valid = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

    @Test("a valid header is read into trace id, parent id and flags, and written back unchanged")
    func parsesValid() throws {
        let parent = try #require(TraceParent(Self.valid))
        #expect(parent.traceID == "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(parent.spanID == "00f067aa0ba902b7")
        #expect(parent.isSampled)
        #expect(parent.description == Self.valid)
        #expect(TraceParent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00")?.isSampled == false)
    }

    @Test(
        "malformed headers are not trace context (ignored, never an error)",
        arguments: [
            "",
            "garbage",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",  // no flags
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",  // version 00 has no more fields
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",  // uppercase
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",  // all-zero trace id
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",  // all-zero parent id
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",  // forbidden version
            "00_4bf92f3577b34da6a3ce929d0e0e4736_00f067aa0ba902b7_01",  // wrong separators
            "00-4bf92f3577b34da6a3ce929d0e0e473g-00f067aa0ba902b7-01",  // not hex
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0x",  // flags not hex
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" + String(repeating: "x", count: 600),
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba9\u{e9}b7-01",  // not ASCII
        ])
    func refusesMalformed(header: String) {
        #expect(TraceParent(header) == nil)
    }

    @Test("a later version is read by its version 00 prefix, as the specification asks")
    func laterVersion() throws {
        let later = try #require(TraceParent("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-future"))
        #expect(later.traceID == "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(TraceParent("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01future") == nil)
    }

    @Test("push.notify carries traceparent only when the send was traced; an old event still decodes")
    func notifyField() throws {
        let traced = Push.Notify.Params(notificationId: "n-1", traceparent: Self.valid)
        let json = String(decoding: try RPCCodec.makeEncoder().encode(traced), as: UTF8.self)
        #expect(json == #"{"notificationId":"n-1","traceparent":"\#(Self.valid)"}"#)
        let old = try RPCCodec.makeDecoder().decode(
            Push.Notify.Params.self, from: Data(#"{"notificationId":"n-1"}"#.utf8))
        #expect(old == Push.Notify.Params(notificationId: "n-1"))
        #expect(old.traceparent == nil)
    }
}
