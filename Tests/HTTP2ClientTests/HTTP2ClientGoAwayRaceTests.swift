import Foundation
import NIOCore
import Testing

@testable import HTTP2Client

@Suite("HTTP2Client and a GOAWAY that races a request")
struct HTTP2ClientGoAwayRaceTests {
    private struct RequestNeverTookAStream: Error {}

    @Test("a request that took its stream just before a GOAWAY arrived is sent on a new connection, not that one")
    func goAwayBetweenChoosingAConnectionAndSending() async throws {
        try await withTestServer(.cleartext, router: makeTestRouter()) { server in
            let client = try server.makeClient()
            _ = try await client.execute(HTTP2Request(path: "/echo"))
            let connection = try #require(client.pool.withLock { $0.currentConnection })

            // Holds the connection's event loop until the next request has taken a stream (which needs no event
            // loop, so the hold is brief), then delivers a GOAWAY as if it had just been read: it is handled before
            // that request's HEADERS can be written. A live peer hits this window by chance; here it is hit always.
            let goAwayDelivered = connection.channel.eventLoop.submit {
                let giveUp = ContinuousClock.now + .seconds(10)
                while connection.state.activeStreamCount == 0 {
                    guard ContinuousClock.now < giveUp else { throw RequestNeverTookAStream() }
                    Thread.sleep(forTimeInterval: 0.001)
                }
                let goAway = GoAwayOnFirstRequestHandler.goAwayFrame(
                    lastStreamID: UInt32(Int32.max),
                    allocator: connection.channel.allocator
                )
                connection.channel.pipeline.syncOperations.fireChannelRead(NIOAny(goAway))
            }
            // Well below the default timeout: a request stuck on the departing connection shows up as a timeout.
            let request = HTTP2Request(
                method: .POST,
                path: "/echo",
                body: ByteBuffer(string: "sent once"),
                timeout: .seconds(10)
            )
            let result = await capture { try await client.execute(request) }
            try await goAwayDelivered.get()
            await client.shutdown()

            let response = try result.get()
            #expect(String(buffer: response.body) == "sent once")
            #expect(server.connections.count == 2)
        }
    }
}
