import Foundation
import SecurePushClient
import ServiceCore
import SharedModels
import TestSupport
import Testing
import Tracing

/// One trace from `push.send` to the device's fetch, over real sockets, with a recording tracer in every service.
@Suite("Tracing across the services")
struct TracingTests {
    @Test(
        "push.send, its store.put, the direct channel's write (linked to the send) and the device's store.get are one trace"
    )
    func oneTrace() async throws {
        let tracer = RecordingTracer()
        try await TestStack.with(.cleartext, tracer: tracer) { stack in
            let (device, userId) = try await stack.signedInDevice()
            let deviceId = try await device.register(device: .init(platform: .direct, name: "phone"))
            let backend = try stack.backend()
            tracer.reset()
            let sent = try await backend.send(.init(recipientId: userId, payload: "traced secret"))
            let received = try await first(device.notifications(deviceId: deviceId))
            #expect(received == sent.notificationId)

            let send = try #require(await tracer.spans { $0.name == "push.send" && $0.kind == .server }.first)
            #expect(send.parentSpanID == nil, "the backend does not trace: push.send starts the trace")
            let traceparent = try #require(TraceParent(traceID: send.traceID, spanID: send.spanID))
            let fetched = try await device.fetch(sent.notificationId, traceparent: traceparent.description)
            #expect(fetched.payload == "traced secret")
            // The sender finds the journey's trace through push.status.
            #expect(try await backend.status(notificationId: sent.notificationId).traceId == send.traceID)
            await device.shutdown()
            await backend.shutdown()

            _ = await tracer.spans { $0.name == "store.get" && $0.kind == .server }
            let write = try #require(await tracer.spans { $0.name == "direct.write" }.first)
            let spans = tracer.finishedSpans
            let putClient = try #require(spans.first { $0.name == "store.put" && $0.kind == .client })
            let putServer = try #require(spans.first { $0.name == "store.put" && $0.kind == .server })
            let fetch = try #require(spans.first { $0.name == "store.get" && $0.kind == .server })
            for span in [putClient, putServer, fetch] {
                #expect(span.traceID == send.traceID, "\(span.name) (\(span.kind)) is in another trace")
            }
            #expect(putClient.parentSpanID == send.spanID)
            #expect(putServer.parentSpanID == putClient.spanID)
            #expect(fetch.parentSpanID == send.spanID, "the device's fetch is a child of the send")
            // The write ran from the job in the database, in the send's trace, linked to the send's span.
            #expect(write.kind == .producer)
            #expect(write.traceID == send.traceID, "direct.write is in another trace")
            #expect(write.parentSpanID == send.spanID)
            #expect(write.links.contains { $0.traceID == send.traceID && $0.spanID == send.spanID })
            #expect(send.attributes["rpc.system"]?.toSpanAttribute() == "jsonrpc")
            #expect(send.attributes["rpc.method"]?.toSpanAttribute() == "push.send")
            // Attributes name methods and codes, never users, devices, notifications or payloads.
            let recorded = spans.map { "\($0.name) \($0.attributes)" }
            for secret in [userId, deviceId, sent.notificationId, "traced secret"] {
                #expect(!recorded.contains { $0.contains(secret) })
            }
        }
    }

    @Test("a call with a caller's traceparent joins that trace; a malformed one is ignored and the call still works")
    func incomingTraceContext() async throws {
        let tracer = RecordingTracer()
        try await TestStack.with(.cleartext, tracer: tracer) { stack in
            let auth = try stack.rpcClient(stack.stack.authURL, name: "auth")
            let caller = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
            tracer.reset()
            _ = try await auth.rpc.call(Auth.Keys.self, Empty(), traceparent: caller)
            // (The other services' key loaders call auth.keys too: their spans have parents of their own.)
            let joined = try #require(
                await tracer.spans { $0.kind == .server && $0.traceID == "4bf92f3577b34da6a3ce929d0e0e4736" }.first)
            #expect(joined.name == "auth.keys")
            #expect(joined.parentSpanID == "00f067aa0ba902b7")

            for malformed in [
                "garbage", "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
                String(repeating: "0", count: 4000),
            ] {
                tracer.reset()
                let keys = try await auth.rpc.call(Auth.Keys.self, Empty(), traceparent: malformed)
                #expect(!keys.keys.isEmpty)
                // Nothing of the malformed value is adopted: no span continues it.
                let spans = tracer.finishedSpans
                #expect(!spans.contains { $0.traceID.allSatisfy { $0 == "0" } })
                #expect(!spans.contains { $0.parentSpanID == "00f067aa0ba902b7" })
            }
            await auth.shutdown()
        }
    }

    @Test("a refused call's span records its JSON-RPC error code; an unknown method is named 'unknown'")
    func errorCodes() async throws {
        let tracer = RecordingTracer()
        try await TestStack.with(.cleartext, tracer: tracer) { stack in
            let store = try stack.rpcClient(stack.stack.storeURL, name: "notification-store")
            tracer.reset()
            await #expect(throws: RPCError.self) {
                _ = try await store.rpc.call(Store.Get.self, .init(notificationId: "n-1"), token: "not-a-token")
            }
            let refused = try #require(await tracer.spans { $0.name == "store.get" }.first)
            #expect(
                refused.attributes["rpc.jsonrpc.error_code"]?.toSpanAttribute()
                    == .int64(Int64(RPCErrorCode.unauthenticated)))

            tracer.reset()
            await #expect(throws: RPCError.self) { _ = try await store.rpc.call(CallerChosenName.self, Empty()) }
            let unknown = try #require(await tracer.spans { $0.name == "unknown" }.only)
            #expect(!tracer.finishedSpans.contains { $0.name.contains("4711") })
            #expect(unknown.name == "unknown", "a name the caller chose must not become a span name")
            #expect(unknown.attributes["rpc.method"]?.toSpanAttribute() == "unknown")
            await store.shutdown()
        }
    }
}

/// A method no service has, with a name an attacker chose.
enum CallerChosenName: RPCMethod {
    static let name = "store.user-4711.secret"
    typealias Params = Empty
    typealias Result = Empty
}

extension Array {
    /// The one element, or `nil` when there are none or several.
    fileprivate var only: Element? { count == 1 ? first : nil }
}
