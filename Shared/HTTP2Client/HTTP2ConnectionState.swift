import Synchronization

/// What the client knows about one connection, updated from its event loop and read from any task.
final class HTTP2ConnectionState: Sendable {
    private struct State {
        var isClosed = false
        /// Set once the peer sent GOAWAY: streams above this id were not processed.
        var goAwayLastStreamID: Int32?
        /// Set once the client stopped handing this connection out.
        var isRetired = false
        var activeStreams = 0
    }

    private let state = Mutex(State())

    /// Whether new streams may be opened on this connection.
    var acceptsNewStreams: Bool {
        state.withLock { !$0.isClosed && $0.goAwayLastStreamID == nil && !$0.isRetired }
    }

    var goAwayLastStreamID: Int32? {
        state.withLock { $0.goAwayLastStreamID }
    }

    /// Streams taken and not yet released.
    var activeStreamCount: Int {
        state.withLock { $0.activeStreams }
    }

    /// Counts a new stream; `false` when the connection no longer accepts streams.
    func reserveStream() -> Bool {
        state.withLock { state in
            guard !state.isClosed, state.goAwayLastStreamID == nil, !state.isRetired else { return false }
            state.activeStreams += 1
            return true
        }
    }

    /// Ends a stream; `true` when the connection is draining and now idle, so it should be closed.
    func releaseStream() -> Bool {
        state.withLock { state in
            state.activeStreams -= 1
            return state.activeStreams == 0 && (state.goAwayLastStreamID != nil || state.isRetired)
        }
    }

    /// Records a GOAWAY: the connection takes no new streams.
    func receivedGoAway(lastStreamID: Int32) {
        state.withLock { state in
            state.goAwayLastStreamID = min(lastStreamID, state.goAwayLastStreamID ?? lastStreamID)
        }
    }

    /// Stops handing the connection out; `true` when no stream is active, so it should be closed now.
    func retire() -> Bool {
        state.withLock { state in
            state.isRetired = true
            return state.activeStreams == 0
        }
    }

    func markClosed() {
        state.withLock { $0.isClosed = true }
    }
}
