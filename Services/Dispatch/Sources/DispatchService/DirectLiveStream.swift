import Logging
import NIOCore
import ServiceCore
import Synchronization

/// An open event stream between wake-ups: a few fields under a lock, its response body, and no task. A wake-up
/// hands it to the hub's batch drain (``DirectBatchDrain``: one task for every stream woken together), which writes
/// the device's pending jobs; the hub's one keepalive timer writes the keepalive comment to every idle stream
/// (``keepalive()``); a close ends the body once the drain in progress (if any) has written and recorded its batch.
final class DirectLiveStream: Sendable {
    private struct State {
        /// The highest sequence written (jobs after it still `sent` are written again only on reconnect).
        var lastSequence: Int64 = 0
        /// A drain is running (its own or a batch's): a wake-up now only marks `wokenWhileDraining`, and no keepalive
        /// is written.
        var draining = true
        var wokenWhileDraining = false
        /// A keepalive is on its way to the client: a reader that does not take it gets no second one queued.
        var keepaliveInFlight = false
        var closed = false
        /// The hub no longer lists the stream: only then is its body ended, so whoever sees the response end finds
        /// the hub without it.
        var forgotten = false
        /// The body was ended or reset (once).
        var finished = false
        /// The client is gone or a write failed: the body is reset, not ended.
        var failed = false
    }

    let stream: DirectEventStream
    private let writer: any EventStreamWriter
    private let state = Mutex(State())
    /// Called once when the stream closes on its own (client gone, token expired, device gone): the hub forgets it,
    /// then calls ``forgotten()``.
    private let onClosed: Mutex<(@Sendable (DirectLiveStream) -> Void)?>

    /// A stream that starts out draining (the opening drain runs in the request's own task).
    init(
        stream: DirectEventStream, writer: any EventStreamWriter,
        onClosed: @escaping @Sendable (DirectLiveStream) -> Void
    ) {
        self.stream = stream
        self.writer = writer
        self.onClosed = Mutex(onClosed)
    }

    var deviceID: String { stream.deviceID }
    var ownerID: String { stream.ownerID }
    var sessionID: String? { stream.sessionID }
    var isClosed: Bool { state.withLock { $0.closed } }
    /// Whether a drain runs (or is about to go round again).
    var isDraining: Bool { state.withLock { $0.draining } }

    /// Drains until no wake-up came in while it ran; ends the stream when its token expired, the device is no longer
    /// its owner's, or the client is gone. Runs in the opening request's task, and in a task of its own after a batch
    /// when the device has more than one batch pending or was woken again meanwhile.
    func drain() async {
        while true {
            let sequence = state.withLock { state -> Int64? in
                if state.closed { state.draining = false }
                return state.closed ? nil : state.lastSequence
            }
            guard let sequence else { return finishIfClosed() }  // closed before this round started
            do {
                guard !stream.tokenExpired(), try await stream.isStillOwned() else {
                    state.withLock { $0.draining = false }
                    return close()
                }
                let last = try await stream.drain(after: sequence, writer: writer)
                state.withLock { $0.lastSequence = max($0.lastSequence, last) }
            } catch {
                stream.logger.debug(
                    "direct.stream.dropped",
                    metadata: [LogMetadataKey.deviceID: "\(stream.deviceID)", "error": "\(error)"])
                return fail()
            }
            let again = state.withLock { state -> Bool in
                if state.wokenWhileDraining && !state.closed {
                    state.wokenWhileDraining = false
                    return true
                }
                state.draining = false
                return false
            }
            if !again { return finishIfClosed() }
        }
    }

    /// Starts a drain served by the hub's batch (``DirectBatchDrain``); returns the sequence written so far, or `nil`
    /// when the stream is closed or already draining (that drain then goes round once more).
    func beginBatchDrain() -> Int64? {
        state.withLock { state -> Int64? in
            guard !state.closed else { return nil }
            guard !state.draining else {
                state.wokenWhileDraining = true
                return nil
            }
            state.draining = true
            return state.lastSequence
        }
    }

    /// The batch wrote and recorded up to `last`. When its share was full (`more`) or a wake-up came meanwhile, the
    /// stream drains on in a task of its own.
    func endBatchDrain(last: Int64, more: Bool) {
        let again = state.withLock { state -> Bool in
            state.lastSequence = max(state.lastSequence, last)
            if (more || state.wokenWhileDraining) && !state.closed {
                state.wokenWhileDraining = false
                return true
            }
            state.draining = false
            return false
        }
        if again {
            Task { await self.drain() }
        } else {
            finishIfClosed()
        }
    }

    /// The batch found the stream's token expired or its device gone (or moved): the stream ends.
    func endBatchDrainClosing() {
        state.withLock { $0.draining = false }
        close()
    }

    /// Queues `buffer` on the response without waiting (the batch's writes).
    func post(_ buffer: ByteBuffer, completion: @escaping @Sendable (Bool) -> Void) {
        writer.post(buffer, completion: completion)
    }

    /// One keepalive tick: ends the stream once its token has expired; otherwise writes the keepalive comment unless
    /// a drain is writing now or the previous keepalive has not gone out yet (a slow reader holds one, never more).
    func keepalive() {
        guard !isClosed else { return }
        guard !stream.tokenExpired() else { return close() }
        let send = state.withLock { state -> Bool in
            guard !state.closed, !state.draining, !state.keepaliveInFlight else { return false }
            state.keepaliveInFlight = true
            return true
        }
        guard send else { return }
        writer.post(DirectEventStream.keepalive) { [self] sent in
            state.withLock { $0.keepaliveInFlight = false }
            if !sent { fail() }
        }
    }

    /// Ends the stream: at once when idle, else after the drain in progress has written and recorded its batch.
    /// Idempotent; the hub forgets the stream (when the close did not come from the hub itself).
    func close() {
        let first = state.withLock { state -> Bool in
            defer { state.closed = true }
            return !state.closed
        }
        guard first else { return }
        let forget = onClosed.withLock { callback in
            defer { callback = nil }
            return callback
        }
        if let forget {
            forget(self)
        } else {
            finishIfClosed()
        }
    }

    /// The hub has forgotten the stream that closed on its own: the body may end now.
    func forgotten() {
        state.withLock { $0.forgotten = true }
        finishIfClosed()
    }

    /// The hub already forgot this stream (it closed it, or shut down): only the close remains.
    func closeFromHub() {
        onClosed.withLock { $0 = nil }
        state.withLock { $0.forgotten = true }
        close()
    }

    /// The client is gone or a write failed: the body is reset (the client reconnects) instead of ended.
    func fail() {
        state.withLock {
            $0.failed = true
            $0.draining = false
        }
        close()
        finishIfClosed()  // already closed by someone else: the body still needs its reset
    }

    /// Ends (or resets) the body once the stream is closed and no drain is running.
    private func finishIfClosed() {
        let finish = state.withLock { state -> Bool? in
            guard state.closed, state.forgotten, !state.draining, !state.finished else { return nil }
            state.finished = true
            return state.failed
        }
        guard let failed = finish else { return }
        if failed {
            writer.reset()
        } else {
            writer.end()
        }
        stream.metrics.openStreams.decrement()
        stream.logger.debug("direct.stream.ended", metadata: [LogMetadataKey.deviceID: "\(stream.deviceID)"])
    }
}
