import DispatchService
import Foundation
import SharedModels
import TestSupport
import Testing

@Suite("the direct channel's event stream over a real HTTP/2 socket")
struct EventStreamTests {
    static func url(_ port: Int, _ deviceID: String) -> String {
        "http://127.0.0.1:\(port)/devices/\(deviceID)/events"
    }

    @Test("pending ids, then live ones, arrive in order as push.notify events carrying only the id")
    func pendingThenLive() async throws {
        // A keepalive (and safety re-read) far beyond the waits below: live ids can only come from the wake-up.
        let harness = try await DispatchHarness(configuration: DispatchHarness.configuration(keepalive: .seconds(60)))
        let device = try await harness.registerDevice(user: "alice")
        let first = try await harness.send(to: "alice", payload: "secret one").notificationId
        let second = try await harness.send(to: "alice", payload: "secret two").notificationId
        let alice = try await harness.signer.userToken("alice")

        let stoppedInTime = try await RunningDispatch.with(harness) { port in
            let curl = try CurlStream(url: Self.url(port, device), token: alice)
            defer { curl.stop() }
            #expect(await curl.waitUntil { $0.ids.count >= 2 })
            let third = try await harness.send(to: "alice", payload: "secret three").notificationId
            #expect(await curl.waitUntil { $0.ids.count >= 3 })

            #expect(curl.ids == [first, second, third])
            for event in curl.events {
                let id = try #require(event.id)
                #expect(event.event == "push.notify")
                #expect(event.data == #"{"jsonrpc":"2.0","method":"push.notify","params":{"notificationId":"\#(id)"}}"#)
            }
            #expect(!curl.text.contains("secret"))
            #expect(curl.headers["content-type"] == "text/event-stream")
            #expect(curl.headers["cache-control"] == "no-cache")

            for id in [first, second, third] {
                let delivery = try #require(try await harness.status(id).deliveries.only)
                #expect(delivery.status == .sent)
                #expect(delivery.attempts == 1)
            }
        }
        #expect(stoppedInTime)
    }

    @Test("a device's event stream connection is told to keep no HPACK table (SETTINGS_HEADER_TABLE_SIZE 0)")
    func headerTableShrunk() async throws {
        // Issue 33: what a device's client indexes would stay in push-dispatch's memory for as long as it is
        // connected. nghttp (nghttp2's client) prints the frames it receives; it gives up on the endless stream after
        // 5 s without a frame (an idle timeout: the keepalive below is far longer).
        let harness = try await DispatchHarness(configuration: DispatchHarness.configuration(keepalive: .seconds(60)))
        let device = try await harness.registerDevice(user: "alice")
        let alice = try await harness.signer.userToken("alice")
        try await RunningDispatch.with(harness) { port in
            let nghttp = Process()
            nghttp.executableURL = URL(fileURLWithPath: "/usr/bin/nghttp")
            nghttp.arguments = ["-v", "--timeout=5", "-H", "authorization: Bearer \(alice)", Self.url(port, device)]
            let output = String(decoding: try await nghttp.runCapturingOutput().output, as: UTF8.self)
            #expect(output.contains(":status: 200"), "the event stream was not opened: \(output.prefix(2000))")
            #expect(
                output.contains("[SETTINGS_HEADER_TABLE_SIZE(0x01):0]"),
                "no SETTINGS_HEADER_TABLE_SIZE 0 on the event stream's connection: \(output.prefix(2000))")
        }
    }

    @Test("unacknowledged ids are written again on reconnect, in order; acknowledged ones never again")
    func redeliveryUntilAck() async throws {
        let harness = try await DispatchHarness()
        let device = try await harness.registerDevice(user: "alice")
        let first = try await harness.send(to: "alice").notificationId
        let second = try await harness.send(to: "alice").notificationId
        let alice = try await harness.signer.userToken("alice")

        try await RunningDispatch.with(harness) { port in
            let before = try CurlStream(url: Self.url(port, device), token: alice)
            #expect(await before.waitUntil { $0.ids.count >= 2 })
            before.stop()
            // The stream notices the client is gone at its next write and removes its subscription.
            #expect(await eventually { await harness.components.hub.streamCount(deviceID: device) == 0 })

            _ = try await harness.client.call(
                Devices.Ack.self, .init(deviceId: device, notificationId: first), token: alice)

            let after = try CurlStream(url: Self.url(port, device), token: alice)
            defer { after.stop() }
            #expect(await after.waitUntil { $0.ids.count >= 1 })
            let third = try await harness.send(to: "alice").notificationId
            #expect(await after.waitUntil { $0.ids.count >= 2 })
            // Idle streams write keepalive comments, and nothing else comes after them.
            let keepalives = after.text.components(separatedBy: ": keepalive\n\n").count
            #expect(await after.waitUntil { $0.text.components(separatedBy: ": keepalive\n\n").count > keepalives })

            #expect(before.ids == [first, second])
            #expect(after.ids == [second, third])
            #expect(try await harness.status(first).deliveries.only?.status == .acknowledged)
            #expect(try await harness.status(first).deliveries.only?.attempts == 1)
            #expect(try await harness.status(second).deliveries.only?.attempts == 2)
        }
    }

    @Test("no token or a bad one is 401, a client's token is 403, another user's device or an unknown one is 404")
    func refusals() async throws {
        let harness = try await DispatchHarness()
        let device = try await harness.registerDevice(user: "alice")
        _ = try await harness.send(to: "alice", payload: "secret")
        let bob = try await harness.signer.userToken("bob")
        let backend = try await harness.signer.senderToken()
        let stranger = try await TestSigner().userToken("alice")  // signed with a key auth never published

        try await RunningDispatch.with(harness) { port in
            let cases: [(token: String?, device: String, status: Int, code: Int)] = [
                (nil, device, 401, RPCErrorCode.unauthenticated),
                ("not-a-jwt", device, 401, RPCErrorCode.unauthenticated),
                (stranger, device, 401, RPCErrorCode.unauthenticated),
                (bob, device, 404, RPCErrorCode.notFound),
                (backend, device, 403, RPCErrorCode.forbidden),
                (bob, UUID().uuidString.lowercased(), 404, RPCErrorCode.notFound),
            ]
            for refusal in cases {
                let (status, body) = try await curlGet(Self.url(port, refusal.device), token: refusal.token)
                #expect(status == refusal.status)
                let response = try RPCCodec.makeDecoder().decode(RPCResponseEnvelope<Empty>.self, from: Data(body.utf8))
                #expect(response.error?.code == refusal.code)
                #expect(!body.contains("push.notify"))
            }
            #expect(await harness.components.hub.streamCount(deviceID: device) == 0)
        }
    }

    @Test("unregistering a device ends its open stream")
    func unregisterEndsStream() async throws {
        let harness = try await DispatchHarness()
        let device = try await harness.registerDevice(user: "alice")
        let alice = try await harness.signer.userToken("alice")

        try await RunningDispatch.with(harness) { port in
            let curl = try CurlStream(url: Self.url(port, device), token: alice)
            defer { curl.stop() }
            #expect(await eventually { await harness.components.hub.streamCount(deviceID: device) == 1 })
            _ = try await harness.client.call(Devices.Unregister.self, .init(deviceId: device), token: alice)
            #expect(await curl.waitUntil { !$0.isRunning })
            #expect(await harness.components.hub.streamCount(deviceID: device) == 0)
        }
    }

    @Test("a graceful shutdown ends open streams instead of waiting for them")
    func gracefulShutdownEndsStreams() async throws {
        // A keepalive far longer than the shutdown timeout: only the shutdown itself can end the stream in time.
        let harness = try await DispatchHarness(configuration: DispatchHarness.configuration(keepalive: .seconds(60)))
        let device = try await harness.registerDevice(user: "alice")
        let alice = try await harness.signer.userToken("alice")
        var streams: [CurlStream] = []
        defer { for stream in streams { stream.stop() } }

        let stoppedInTime = try await RunningDispatch.with(harness, shutdownTimeout: .seconds(10)) { port in
            let curl = try CurlStream(url: Self.url(port, device), token: alice)
            streams.append(curl)
            #expect(await eventually { await harness.components.hub.streamCount(deviceID: device) == 1 })
        }
        #expect(stoppedInTime)
        #expect(await streams[0].waitUntil { !$0.isRunning })
    }
}
