import NIOCore
import Synchronization

/// Closes a stream from outside the task reading it (timeout, cancellation) and remembers why,
/// so the reader reports the cause instead of a bare "stream closed".
final class HTTP2StreamCloser: Sendable {
    enum Reason: Sendable {
        case timeout
        case cancelled
    }

    private let channel: any Channel
    private let reason = Mutex<Reason?>(nil)

    init(channel: any Channel) {
        self.channel = channel
    }

    /// Why the stream was closed from outside, if it was.
    var closeReason: Reason? {
        reason.withLock { $0 }
    }

    /// Closes the stream (RST_STREAM) unless it was already closed for another reason.
    func close(_ newReason: Reason) {
        let first = reason.withLock { reason in
            guard reason == nil else { return false }
            reason = newReason
            return true
        }
        if first {
            channel.close(promise: nil)
        }
    }
}
