import Foundation
import HTTP2Client
import SecurePushClient
import ServiceCore
import SharedModels
import Synchronization

/// Writes `listen`'s connection state to standard error, one line per change: connecting, connected, lost —
/// retrying in N s, reconnected.
final class ConnectionReporter: Sendable {
    private struct State {
        var everConnected = false
        var connected = false
        var announcedConnecting = false
        /// The last disconnection written: whether it was "still not connected", and its reason.
        var lastDisconnection: (still: Bool, reason: String)?
    }

    private let dispatchURL: String
    private let deviceId: String
    private let write: @Sendable (String) -> Void
    private let state = Mutex(State())

    /// - Parameter write: where lines go (standard error by default).
    init(
        dispatchURL: String, deviceId: String,
        write: @escaping @Sendable (String) -> Void = { FileHandle.standardError.write(Data(($0 + "\n").utf8)) }
    ) {
        self.dispatchURL = dispatchURL
        self.deviceId = deviceId
        self.write = write
    }

    /// Records a state; writes a line when it changed.
    func report(_ event: EventStreamState) {
        let line: String? = state.withLock { state in
            switch event {
            case .connecting:
                guard !state.announcedConnecting else { return nil }
                state.announcedConnecting = true
                return "connecting to push-dispatch at \(dispatchURL)…"
            case .connected:
                defer {
                    state.everConnected = true
                    state.connected = true
                    state.lastDisconnection = nil
                }
                return state.everConnected
                    ? "reconnected"
                    : "connected: listening for secure notifications on device \(deviceId) (Ctrl-C to stop)"
            case .disconnected(let reason, let retryIn):
                let wasConnected = state.connected
                state.connected = false
                // The first failure; then once "still not connected"; after that only a different reason is news
                // (each retry's longer delay is not).
                let why = Self.describe(reason)
                let what: String
                if wasConnected || state.lastDisconnection == nil {
                    what = state.everConnected ? "connection lost" : "not connected"
                    state.lastDisconnection = (still: false, reason: why)
                } else if state.lastDisconnection?.still == true, state.lastDisconnection?.reason == why {
                    return nil
                } else {
                    what = "still not connected"
                    state.lastDisconnection = (still: true, reason: why)
                }
                return "\(what): \(why) — retrying in \(Self.format(retryIn))"
            }
        }
        if let line { write(line) }
    }

    /// Why the stream dropped, in a few words.
    static func describe(_ reason: (any Error)?) -> String {
        switch reason {
        case nil:
            return "push-dispatch closed the stream"
        case let error as HTTP2ClientError where error == .connectFailed:
            return "cannot reach push-dispatch (is `securepush up` running?)"
        case let error as HTTP2ClientError:
            return "push-dispatch: \(error)"
        case let error as RPCError where error.code == RPCErrorCode.unavailable:
            let service = error.data?["dependency"].map { value -> String in
                if case .string(let name) = value { name } else { "a service" }
            }
            return "cannot reach \(service ?? "a service") to renew the session (is `securepush up` running?)"
        case let error?:
            return "\(error)"
        }
    }

    /// `0.2 s`, `3 s`.
    static func format(_ duration: Duration) -> String {
        let seconds = duration.timeInterval
        return seconds < 1 ? String(format: "%.1f s", seconds) : "\(Int(seconds.rounded())) s"
    }
}
