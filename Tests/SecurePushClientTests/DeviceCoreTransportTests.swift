import Foundation
import JSONRPC
import Logging
import SecurePushClient
import SharedModels
import Synchronization
import Testing

@testable import SecurePushDeviceCore

/// The device core over a transport of the test's own (issue 28): its logic owes nothing to HTTP/2.
@Suite("The device core over any SecurePushTransport")
struct DeviceCoreTransportTests {
    /// A transport that answers the direct channel from a script: each connection gets the next list of body pieces
    /// (a 200; a piece ``broken`` makes the connection fail there), and the last connection stays open until
    /// cancelled. JSON-RPC calls are refused (`-32050`).
    final class ScriptedTransport: SecurePushTransport {
        let connections: Mutex<[[String]]>
        let requests = Mutex<[(path: String, headers: [(String, String)])]>([])

        init(_ connections: [[String]]) { self.connections = Mutex(connections) }

        struct Refusing: RPCTransport {
            func post(_ body: Data, bearerToken: String?) async throws -> Data? {
                throw RPCError.unavailable("test", "not reachable")
            }
        }

        func rpc(_ service: SecurePushService, extraHeaders: [(String, String)]) -> any RPCTransport { Refusing() }

        func eventStream(
            path: String, headers: [(String, String)], opened: @Sendable () -> Void,
            received: @Sendable (Data) throws -> Void
        ) async throws -> Int {
            requests.withLock { $0.append((path, headers)) }
            let (pieces, last) = connections.withLock { connections in
                connections.isEmpty ? ([], true) : (connections.removeFirst(), connections.isEmpty)
            }
            opened()
            for piece in pieces {
                if piece == ScriptedTransport.broken { throw Broken() }
                try received(Data(piece.utf8))
            }
            if last {
                // The server keeps the last stream open.
                while !Task.isCancelled { try? await Task.sleep(for: .milliseconds(10)) }
            }
            return 200
        }

        func shutdown() async {}

        /// A piece that breaks the connection (a network loss mid-stream).
        static let broken = "<broken>"
        struct Broken: Error {}
    }

    static func event(_ id: String) -> String {
        #"data: {"jsonrpc":"2.0","method":"push.notify","params":{"notificationId":"\#(id)"}}"# + "\n\n"
    }

    /// The first `count` ids a signed-in device's direct channel yields over `transport`.
    static func firstIDs(_ count: Int, over transport: ScriptedTransport) async throws -> [String] {
        let session = DeviceSession(
            userId: "ada", accessToken: "access-token", refreshToken: "refresh-token",
            accessTokenExpiresAt: Date().addingTimeInterval(3600))
        let device = SecurePushDevice(transport: transport, session: session, logger: Logger(label: "test"))
        var received: [String] = []
        for try await id in device.notifications(deviceId: "dev-1") {
            received.append(id)
            if received.count == count { break }
        }
        return received
    }

    @Test(
        "a line that never ends (70 KiB in pieces) drops the connection after at most 64 KiB; the next one goes on, its ids once"
    )
    func oversizedEvent() async throws {
        let transport = ScriptedTransport([
            [Self.event("id-1")] + Array(repeating: "data: " + String(repeating: "x", count: 10_240), count: 7),
            [Self.event("id-1"), Self.event("id-2")],
            [],
        ])
        #expect(try await Self.firstIDs(2, over: transport) == ["id-1", "id-2"])
        #expect(transport.requests.withLock { $0 }.count >= 2)
    }

    @Test("the parser bounds a line and an event's data, and takes an event that fits")
    func parserBounds() throws {
        let max = ServerSentEventParser.maxEventBytes
        #expect(max == 64 * 1024)
        var line = ServerSentEventParser()
        #expect(throws: ServerSentEventParser.Oversized.self) {
            _ = try line.feed(Array(("data: " + String(repeating: "x", count: max + 10)).utf8))
        }
        var lines = ServerSentEventParser()
        #expect(throws: ServerSentEventParser.Oversized.self) {
            for _ in 0..<200 { _ = try lines.feed(Array(("data: " + String(repeating: "y", count: 1000) + "\n").utf8)) }
        }
        var fits = ServerSentEventParser()
        let events = try fits.feed(Array(("data: " + String(repeating: "z", count: 60_000) + "\n\n").utf8))
        #expect(events.map(\.data.utf8.count) == [60_000])
    }

    @Test("a connection that breaks after some ids: the ids sent again on the next connection are not yielded twice")
    func brokenConnection() async throws {
        let transport = ScriptedTransport([
            [Self.event("id-1"), Self.event("id-2"), ScriptedTransport.broken],
            [Self.event("id-1"), Self.event("id-2"), Self.event("id-3")],
        ])
        let received = try await Self.firstIDs(3, over: transport)
        #expect(received == ["id-1", "id-2", "id-3"])
    }

    @Test(
        "ids arrive across pieces split anywhere, each once across reconnects, with the access token on the stream"
    )
    func eventStreamAcrossReconnects() async throws {
        let first = Self.event("id-1") + Self.event("id-2")
        let split = first.index(first.startIndex, offsetBy: 30)
        let transport = ScriptedTransport([
            [String(first[..<split]), String(first[split...])],
            // After a reconnect the server sends what was not acknowledged again, then something new.
            [Self.event("id-2"), ": keepalive\n\n", Self.event("id-3")],
        ])
        let received = try await Self.firstIDs(3, over: transport)
        #expect(received == ["id-1", "id-2", "id-3"])
        let requests = transport.requests.withLock { $0 }
        #expect(requests.count == 2)
        #expect(requests.allSatisfy { $0.path == "/devices/dev-1/events" })
        #expect(requests.first?.headers.contains { $0 == ("authorization", "Bearer access-token") } == true)
    }
}
