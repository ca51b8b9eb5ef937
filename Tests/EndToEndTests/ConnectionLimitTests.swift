import Foundation
import SecurePushClient
import SharedModels
import Testing

@Suite("Connection limits: handshake and idle timeouts")
struct ConnectionLimitTests {
    @Test("a connection that starts no request is closed after the handshake timeout")
    func handshakeTimeout() async throws {
        let extra = ["SECUREPUSH_HANDSHAKE_TIMEOUT": "1", "SECUREPUSH_IDLE_TIMEOUT": "60"]
        try await TestStack.with(.cleartext, extra: extra) { stack in
            let connection = try RawHTTP2Connection(port: stack.stack.auth.port)
            try connection.sendPreface()
            let started = ContinuousClock.now
            let (_, closed) = connection.readUntilClosed(timeout: .seconds(8))
            #expect(closed)
            #expect(ContinuousClock.now - started >= .milliseconds(800))
        }
    }

    @Test("an idle connection gets GOAWAY after the idle timeout and is closed even when its client never answers")
    func idleTimeout() async throws {
        let extra = ["SECUREPUSH_HANDSHAKE_TIMEOUT": "60", "SECUREPUSH_IDLE_TIMEOUT": "1"]
        try await TestStack.with(.cleartext, extra: extra) { stack in
            let connection = try RawHTTP2Connection(port: stack.stack.store.port)
            try connection.sendPreface()
            try connection.sendGET("/health")
            // The read ends when the server closes (~1 s after the answer); the long deadline is for a machine the
            // whole suite loads at once (a CI run once saw no answer within 8 s while 1,100 tests shared 2 cores).
            let (frames, closed) = connection.readUntilClosed(timeout: .seconds(30))
            #expect(frames.contains(RawHTTP2Connection.FrameType.headers.rawValue))
            #expect(frames.contains(RawHTTP2Connection.FrameType.goAway.rawValue))
            #expect(closed)
        }
    }

    @Test("a connection holding an open event stream outlives the idle timeout")
    func eventStreamOutlivesIdleTimeout() async throws {
        let extra = [
            "SECUREPUSH_IDLE_TIMEOUT": "1", "SECUREPUSH_HANDSHAKE_TIMEOUT": "1", "SECUREPUSH_DISPATCH_KEEPALIVE": "1",
        ]
        try await TestStack.with(.cleartext, extra: extra) { stack in
            let (device, _) = try await stack.signedInDevice()
            let deviceId = try await device.register(device: .init(platform: .direct, name: "idle-test"))
            let token = try #require(await device.session?.accessToken)
            let connection = try RawHTTP2Connection(port: stack.stack.dispatch.port)
            try connection.sendPreface()
            try connection.sendGET("/devices/\(deviceId)/events", bearer: token)
            // Three idle timeouts pass: the connection stays open and gets no GOAWAY, and keepalives come on it (at
            // least one: on two cores shared with the whole suite, the 1 s keepalive timer may run late, so the read
            // goes on past the three timeouts, up to 10 s, until one has come).
            let (frames, closed) = connection.readUntilClosed(atLeast: .milliseconds(3500), atMost: .seconds(10)) {
                $0.contains(RawHTTP2Connection.FrameType.data.rawValue)
            }
            #expect(!closed)
            #expect(frames.filter { $0 == RawHTTP2Connection.FrameType.data.rawValue }.count >= 1)
            #expect(!frames.contains(RawHTTP2Connection.FrameType.goAway.rawValue))
            await device.shutdown()
        }
    }
}
