import Foundation
import HTTP2Client
import HTTPTypes
import Hummingbird
import JSONRPC
import NIOCore
import Testing

@Suite("HTTP2RPCTransport")
struct HTTP2RPCTransportTests {
    /// `/rpc` answers with a JSON-RPC result naming what it received; the others give fixed statuses.
    static func makeRPCRouter() -> Router<BasicRequestContext> {
        let router = Router()
        router.post("/rpc") { request, _ -> Response in
            let body = try await request.body.collect(upTo: 1 << 20)
            let result: JSONValue = .object([
                "authorization": .string(request.headers[.authorization] ?? ""),
                "contentType": .string(request.headers[.contentType] ?? ""),
                "receivedBody": .string(String(buffer: body)),
            ])
            let data = try RPCCodec.makeEncoder().encode(RPCResponse(id: .int(1), outcome: .result(result)))
            return Response(
                status: .ok,
                headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(bytes: data))
            )
        }
        router.post("/rpc-notification") { _, _ in Response(status: .noContent) }
        router.post("/rpc-error") { _, _ -> Response in
            let data = try RPCCodec.makeEncoder().encode(RPCResponse(id: .int(1), outcome: .error(.internalError)))
            return Response(status: .internalServerError, body: .init(byteBuffer: ByteBuffer(bytes: data)))
        }
        router.post("/rpc-proxy-error") { _, _ in
            Response(status: .badGateway, body: .init(byteBuffer: ByteBuffer(string: "<html>bad gateway</html>")))
        }
        return router
    }

    @Test("a call is posted as JSON with the bearer token and the body comes back", arguments: ServerMode.http2Modes)
    func post(mode: ServerMode) async throws {
        try await withTestServer(mode, router: Self.makeRPCRouter()) { server in
            let client = try server.makeClient()
            let transport = HTTP2RPCTransport(client: client, peerName: "auth")
            let data = try #require(try await transport.post(Data(#"{"jsonrpc":"2.0"}"#.utf8), bearerToken: "tok123"))
            await client.shutdown()

            let response = try RPCCodec.makeDecoder().decode(RPCResponseEnvelope<JSONValue>.self, from: data)
            #expect(
                response.result
                    == .object([
                        "authorization": .string("Bearer tok123"),
                        "contentType": .string("application/json"),
                        "receivedBody": .string(#"{"jsonrpc":"2.0"}"#),
                    ])
            )
        }
    }

    @Test("204 No Content gives nil")
    func noContent() async throws {
        try await withTestServer(.cleartext, router: Self.makeRPCRouter()) { server in
            let client = try server.makeClient()
            let transport = HTTP2RPCTransport(client: client, path: "/rpc-notification", peerName: "store")
            let data = try await transport.post(Data("{}".utf8), bearerToken: nil)
            await client.shutdown()
            #expect(data == nil)
        }
    }

    @Test("an error status with a JSON-RPC body passes the body on; without one it is -32050")
    func errorStatuses() async throws {
        try await withTestServer(.cleartext, router: Self.makeRPCRouter()) { server in
            let client = try server.makeClient()
            let withBody = HTTP2RPCTransport(client: client, path: "/rpc-error", peerName: "store")
            let data = try #require(try await withBody.post(Data("{}".utf8), bearerToken: nil))
            let response = try RPCCodec.makeDecoder().decode(RPCResponseEnvelope<JSONValue>.self, from: data)
            #expect(response.error == .internalError)

            let proxy = HTTP2RPCTransport(client: client, path: "/rpc-proxy-error", peerName: "store")
            let error = await #expect(throws: RPCError.self) {
                _ = try await proxy.post(Data("{}".utf8), bearerToken: nil)
            }
            await client.shutdown()
            #expect(error?.code == RPCErrorCode.unavailable)
            #expect(error?.message == "Dependency unavailable: store: HTTP 502")
        }
    }

    @Test("a dead peer becomes RPCError -32050 naming the peer, not its address")
    func deadPeer() async throws {
        let port = try await withTestServer(.cleartext, router: Self.makeRPCRouter()) { $0.port }
        let client = try HTTP2Client(baseURL: "http://127.0.0.1:\(port)", logger: .quiet)
        let transport = HTTP2RPCTransport(client: client, peerName: "push-dispatch")
        let error = await #expect(throws: RPCError.self) {
            _ = try await transport.post(Data("{}".utf8), bearerToken: "t")
        }
        await client.shutdown()
        #expect(error?.code == -32050)
        // The kind of failure only: the address and the library's error stay in the debug log.
        #expect(error?.message == "Dependency unavailable: push-dispatch: not reachable")
        #expect(error?.message.contains("\(port)") == false)
        #expect(error?.data == .object(["dependency": .string("push-dispatch")]))
    }
}
