import NIOCore
import Synchronization

/// What a server's connections hold right now: open connections (in all and per address) and the request and
/// response bytes they buffer. Shared by every connection of one server; metrics read it when scraped.
public final class HTTP2ServerLoad: Sendable {
    private struct Connections {
        var total = 0
        var byAddress: [PeerAddressKey: Int] = [:]
    }

    private let connections = Mutex(Connections())
    private let requestBytes = Atomic<Int>(0)
    private let responseBytes = Atomic<Int>(0)
    private let requestBytesPeak = Atomic<Int>(0)
    private let connectionsPeak = Atomic<Int>(0)
    private let headerTableFailures = Atomic<Int>(0)
    private let headerTableFailureLog = IntervalGate(interval: .seconds(60))

    public init() {}

    /// Connections that ended on a header compression error after their HPACK table was shrunk for a streaming
    /// response (``HTTP2Limits/streamingHeaderTableBytes``): most likely clients that ignore a smaller table.
    public var headerTableFailureCount: Int { headerTableFailures.load(ordering: .relaxed) }

    /// Counts one such connection; `true` when it is to be logged (the first, then at most once a minute: a fleet of
    /// such clients reconnecting must not flood the log).
    func recordHeaderTableFailure() -> Bool {
        headerTableFailures.add(1, ordering: .relaxed)
        return headerTableFailureLog.open()
    }

    /// Connections open now.
    public var openConnections: Int { connections.withLock { $0.total } }

    /// Request body bytes held by streams still arriving, over all connections.
    public var bufferedRequestBytes: Int { requestBytes.load(ordering: .relaxed) }

    /// Response bytes queued for clients and not yet handed to the socket, over all connections.
    public var pendingResponseBytes: Int { responseBytes.load(ordering: .relaxed) }

    /// The most request body bytes buffered at once since the server started (diagnostics and tests: a sampler on a
    /// busy machine could miss the peak).
    public var peakBufferedRequestBytes: Int { requestBytesPeak.load(ordering: .relaxed) }

    /// The most connections open at once since the server started.
    public var peakOpenConnections: Int { connectionsPeak.load(ordering: .relaxed) }

    /// A connection counted by ``admit(_:_:)``: release it with ``release(_:)`` when it closes.
    struct Ticket: Sendable {
        /// The address it counts against (`nil`: exempt, or not an IP peer).
        fileprivate let key: PeerAddressKey?
    }

    /// Counts a new connection from `peer` unless that would break `admission`.
    func admit(_ peer: SocketAddress?, _ admission: HTTP2ConnectionAdmission) -> Result<
        Ticket, HTTP2ConnectionAdmission.Refusal
    > {
        let exempt = peer.map(admission.isExempt) ?? false
        let key = exempt ? nil : PeerAddressKey(peer)
        return connections.withLock { state in
            guard state.total < admission.maxConnections else { return .failure(.total) }
            if let key {
                let count = state.byAddress[key, default: 0]
                guard count < admission.maxConnectionsPerAddress else { return .failure(.perAddress) }
                state.byAddress[key] = count + 1
            }
            state.total += 1
            connectionsPeak.max(state.total, ordering: .relaxed)
            return .success(Ticket(key: key))
        }
    }

    /// Forgets an admitted connection.
    func release(_ ticket: Ticket) {
        connections.withLock { state in
            state.total -= 1
            guard let key = ticket.key, let count = state.byAddress[key] else { return }
            state.byAddress[key] = count > 1 ? count - 1 : nil
        }
    }

    /// Adds `delta` (negative to release) to the buffered request bytes.
    func addRequestBytes(_ delta: Int) {
        guard delta != 0 else { return }
        let now = requestBytes.add(delta, ordering: .relaxed).newValue
        if delta > 0 { requestBytesPeak.max(now, ordering: .relaxed) }
    }

    /// Adds `delta` (negative to release) to the pending response bytes.
    func addResponseBytes(_ delta: Int) {
        if delta != 0 { responseBytes.add(delta, ordering: .relaxed) }
    }
}
