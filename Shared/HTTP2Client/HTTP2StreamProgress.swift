import NIOHTTP2
import Synchronization

/// How far a request got onto the wire: decides whether a failed request may be retried.
final class HTTP2StreamProgress: Sendable {
    enum Phase: Sendable {
        /// Nothing was written: retrying is safe.
        case idle
        /// The request head is on its way; its fate is unknown.
        case writingHead
        /// The HEADERS frame was written on this stream.
        case headWritten(HTTP2StreamID?)
        /// Writing the HEADERS frame failed, so the peer never saw the request.
        case headFailed
    }

    private let phase = Mutex(Phase.idle)

    var current: Phase { phase.withLock { $0 } }

    func set(_ newPhase: Phase) {
        phase.withLock { $0 = newPhase }
    }
}
