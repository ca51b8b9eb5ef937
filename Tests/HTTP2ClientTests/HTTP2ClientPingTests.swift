import HTTP2Client
import NIOCore
import TestSupport
import Testing

@Suite("HTTP2Client PING")
struct HTTP2ClientPingTests {
    @Test("without a connection there is nothing to ping", arguments: ServerMode.http2Modes)
    func noConnection(mode: ServerMode) async throws {
        try await withTestServer(mode, router: makeTestRouter()) { server in
            let client = try server.makeClient()
            #expect(try await client.ping(timeout: .seconds(5)) == nil)
            await client.shutdown()
            #expect(server.connections.count == 0)
        }
    }

    @Test(
        "a PING on the open connection is acknowledged and the connection stays in use",
        arguments: ServerMode.http2Modes)
    func acknowledged(mode: ServerMode) async throws {
        try await withTestServer(mode, router: makeTestRouter()) { server in
            let client = try server.makeClient()
            _ = try await client.execute(HTTP2Request(path: "/echo"))
            let roundTrip = try #require(try await client.ping(timeout: .seconds(5)))
            #expect(roundTrip >= .zero)
            #expect(try await client.ping(timeout: .seconds(5)) != nil)
            let response = try await client.execute(HTTP2Request(path: "/echo"))
            await client.shutdown()
            #expect(response.status == 200)
            #expect(server.connections.count == 1)
        }
    }

    @Test("a PING the peer never acknowledges fails with timeout, and the next request uses a new connection")
    func unacknowledged() async throws {
        let blackHole = BlackHole()
        let blackHoleFirstConnection: @Sendable (any Channel, Int) throws -> Void = { channel, index in
            if index == 0 {
                try channel.pipeline.syncOperations.addHandler(BlackHoleHandler(blackHole: blackHole), position: .first)
            }
        }
        try await withTestServer(.cleartext, prepareConnection: blackHoleFirstConnection, router: makeTestRouter()) {
            server in
            let client = try server.makeClient()
            _ = try await client.execute(HTTP2Request(path: "/echo"))
            // The peer goes silent without closing: the connection looks open but nothing comes back.
            blackHole.swallow()
            await #expect(throws: HTTP2ClientError.timeout) {
                _ = try await client.ping(timeout: .milliseconds(200))
            }
            let response = try await client.execute(HTTP2Request(path: "/echo"))
            await client.shutdown()
            #expect(response.status == 200)
            #expect(server.connections.count == 2)
        }
    }
}
