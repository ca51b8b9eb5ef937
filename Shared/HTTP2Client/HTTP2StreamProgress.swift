import NIOHTTP2
import Synchronization

/// How far a request got onto the wire, and whether its response head came in: decides whether a failed request
/// may be retried, and whether a head timeout still applies.
final class HTTP2StreamProgress: Sendable {
    enum Phase: Sendable {
        /// Nothing was written: retrying is safe.
        case idle
        /// The request head is on its way; its fate is unknown.
        case writingHead
        /// The HEADERS frame was written on this stream.
        case headWritten(HTTP2StreamID?)
        /// The HEADERS frame was never written (held back or failed), so the peer never saw the request; says why.
        case headFailed(String)
    }

    private let phase = Mutex(Phase.idle)
    private let responseHead = Atomic(false)

    var current: Phase { phase.withLock { $0 } }

    /// Whether the final (non-1xx) response head was read from the stream.
    var hasResponseHead: Bool { responseHead.load(ordering: .acquiring) }

    func set(_ newPhase: Phase) {
        phase.withLock { $0 = newPhase }
    }

    func markResponseHead() {
        responseHead.store(true, ordering: .releasing)
    }
}
