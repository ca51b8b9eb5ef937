import Foundation
import HTTP2Client
import HTTPTypes
import Hummingbird
import JSONRPC
import NIOCore
import SharedModels
import TestSupport
import Testing
import Tracing

/// Service-to-service calls carry W3C trace context: a client span per call, its `traceparent` in the headers.
@Suite("HTTP2RPCTransport tracing")
struct HTTP2RPCTransportTracingTests {
    /// `/rpc` answers with the `traceparent` it received (empty when none); `/rpc-error` with a JSON-RPC error.
    static func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.post("/rpc") { request, _ -> Response in
            let header = request.headers[HTTPField.Name("traceparent")!] ?? ""
            let data = try RPCCodec.makeEncoder().encode(
                RPCResponse(id: .int(1), outcome: .result(JSONValue.string(header))))
            return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(bytes: data)))
        }
        router.post("/rpc-error") { _, _ -> Response in
            let data = try RPCCodec.makeEncoder().encode(
                RPCResponse(id: .int(1), outcome: .error(.invalidParams(field: "x", "nope"))))
            return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(bytes: data)))
        }
        return router
    }

    static func received(_ data: Data?) throws -> String {
        let data = try #require(data)
        return try #require(try RPCCodec.makeDecoder().decode(RPCResponseEnvelope<String>.self, from: data).result)
    }

    @Test("a traced call is a client span named by the method whose traceparent the server receives")
    func injects() async throws {
        try await withTestServer(.cleartext, router: Self.router()) { server in
            let client = try server.makeClient()
            let tracer = RecordingTracer()
            let transport = HTTP2RPCTransport(client: client, peerName: "notification-store", tracer: tracer)
            let data = try await transport.post(
                Data(#"{"jsonrpc":"2.0","method":"store.put","id":1}"#.utf8), bearerToken: nil, method: "store.put",
                traceparent: nil)
            await client.shutdown()

            let sent = try #require(TraceParent(try Self.received(data)))
            let span = try #require(tracer.finishedSpans.only)
            #expect(span.name == "store.put")
            #expect(span.kind == .client)
            #expect(sent.traceID == span.traceID)
            #expect(sent.spanID == span.spanID)
            #expect(span.attributes["rpc.system"]?.toSpanAttribute() == "jsonrpc")
            #expect(span.attributes["rpc.method"]?.toSpanAttribute() == "store.put")
            #expect(span.attributes["rpc.jsonrpc.error_code"] == nil)
        }
    }

    @Test("a call made inside a span continues its trace")
    func continuesCurrentTrace() async throws {
        try await withTestServer(.cleartext, router: Self.router()) { server in
            let client = try server.makeClient()
            let tracer = RecordingTracer()
            let transport = HTTP2RPCTransport(client: client, peerName: "auth", tracer: tracer)
            let data = try await tracer.withSpan("push.send", ofKind: .server) { _ in
                try await transport.post(Data("{}".utf8), bearerToken: nil, method: "auth.lookupUser", traceparent: nil)
            }
            await client.shutdown()

            let spans = tracer.finishedSpans
            let call = try #require(spans.first { $0.name == "auth.lookupUser" })
            let parent = try #require(spans.first { $0.name == "push.send" })
            #expect(call.traceID == parent.traceID)
            #expect(call.parentSpanID == parent.spanID)
            #expect(TraceParent(try Self.received(data))?.traceID == parent.traceID)
        }
    }

    @Test("a JSON-RPC error answer is recorded as rpc.jsonrpc.error_code")
    func errorCode() async throws {
        try await withTestServer(.cleartext, router: Self.router()) { server in
            let client = try server.makeClient()
            let tracer = RecordingTracer()
            let transport = HTTP2RPCTransport(client: client, path: "/rpc-error", peerName: "auth", tracer: tracer)
            _ = try await transport.post(Data("{}".utf8), bearerToken: nil, method: "auth.keys", traceparent: nil)
            await client.shutdown()
            let span = try #require(tracer.finishedSpans.only)
            #expect(
                span.attributes["rpc.jsonrpc.error_code"]?.toSpanAttribute()
                    == .int64(Int64(RPCErrorCode.invalidParams)))
        }
    }

    @Test("without a tracer no trace header is sent; a caller's own traceparent is sent as given")
    func untracedAndExplicit() async throws {
        try await withTestServer(.cleartext, router: Self.router()) { server in
            let client = try server.makeClient()
            let transport = HTTP2RPCTransport(client: client, peerName: "notification-store")
            let plain = try await transport.post(
                Data("{}".utf8), bearerToken: nil, method: "store.get", traceparent: nil)
            #expect(try Self.received(plain) == "")
            let echoed = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
            let explicit = try await transport.post(
                Data("{}".utf8), bearerToken: nil, method: "store.get", traceparent: echoed)
            #expect(try Self.received(explicit) == echoed)
            await client.shutdown()
        }
    }
}

extension Array {
    /// The one element, or `nil` when there are none or several.
    fileprivate var only: Element? { count == 1 ? first : nil }
}
