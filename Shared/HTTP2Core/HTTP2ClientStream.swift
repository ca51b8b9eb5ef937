import NIOCore
import Synchronization

/// One request's response as its consumer sees it: the head, then body chunks, then the end, or a failure.
///
/// The session delivers on its event loop; one task consumes (``head()``, then ``nextChunk()``). A streamed body
/// is paced by the consumer: the bytes it takes are reported back to nghttp2 (`nghttp2_session_consume`), which
/// only then opens the flow-control window, so a slow reader holds at most one window of data.
package final class HTTP2ClientStream: Sendable {
    /// The final (non-1xx) response head.
    package struct Head: Sendable {
        /// The HTTP status code.
        package var status: Int
        /// The regular header fields, names lowercase.
        package var headers: [(String, String)]
    }

    private struct State {
        var head: Head?
        var chunks = CircularBuffer<ByteBuffer>()
        var ended = false
        var failure: HTTP2ClientStreamFailure?
        /// Set on the event loop when nghttp2 assigned the stream id, and when the HEADERS frame went out.
        var submittedID: Int32?
        var sentStreamID: Int32?
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())
    private let connection: HTTP2ClientConnection
    /// Whether body bytes count as consumed when they arrive (a buffered response) or when ``nextChunk()`` takes
    /// them (a streamed one).
    let consumesOnArrival: Bool
    /// The most body bytes accepted, for a buffered response; more fails the stream with `bodyTooLarge`.
    let bodyLimit: Int?

    init(connection: HTTP2ClientConnection, bodyLimit: Int?) {
        self.connection = connection
        self.bodyLimit = bodyLimit
        self.consumesOnArrival = bodyLimit != nil
    }

    /// The stream id of the sent HEADERS frame; `nil` while (or if) the request has not gone out.
    package var sentStreamID: Int32? { state.withLock { $0.sentStreamID } }

    /// Body bytes received and not yet taken by the consumer.
    package var bufferedByteCount: Int {
        state.withLock { $0.chunks.reduce(0) { $0 + $1.readableBytes } }
    }

    /// Why the stream failed, if it did.
    package var failure: HTTP2ClientStreamFailure? { state.withLock { $0.failure } }

    /// Waits for the final response head.
    package func head() async throws(HTTP2ClientStreamFailure) -> Head {
        while true {
            let outcome: Result<Head, HTTP2ClientStreamFailure>? = state.withLock { state in
                if let head = state.head { return .success(head) }
                if let failure = state.failure { return .failure(failure) }
                return nil
            }
            if let outcome { return try outcome.get() }
            await waitForEvent { $0.head != nil }
        }
    }

    /// The next body chunk, `nil` at the end of the response.
    package func nextChunk() async throws(HTTP2ClientStreamFailure) -> ByteBuffer? {
        while true {
            let outcome: Result<ByteBuffer?, HTTP2ClientStreamFailure>? = state.withLock { state in
                if let failure = state.failure { return .failure(failure) }
                if let chunk = state.chunks.popFirst() { return .success(chunk) }
                if state.ended { return .success(nil) }
                return nil
            }
            if let outcome {
                let chunk = try outcome.get()
                if let chunk, !consumesOnArrival { connection.consume(self, bytes: chunk.readableBytes) }
                return chunk
            }
            await waitForEvent { !$0.chunks.isEmpty || $0.ended }
        }
    }

    /// Ends the stream from the consumer's side (RST_STREAM CANCEL) with `reason`, unless it already ended.
    /// `unlessHeadArrived` leaves a stream alone whose head came in (a head-only timeout).
    package func cancel(_ reason: HTTP2ClientStreamFailure, unlessHeadArrived: Bool = false) {
        let cancelled = state.withLock { state -> Bool in
            guard state.failure == nil, !(state.ended && state.chunks.isEmpty) else { return false }
            if unlessHeadArrived, state.head != nil { return false }
            state.failure = reason
            state.chunks.removeAll()
            return true
        }
        guard cancelled else { return }
        wake()
        connection.reset(self)
    }

    /// Suspends until the session delivers something (or the task is cancelled, which cancels the stream).
    private func waitForEvent(until ready: (State) -> Bool) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { state -> Bool in
                    if ready(state) || state.failure != nil { return true }
                    state.waiter = continuation
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            cancel(.cancelled)
        }
    }

    private func wake() {
        let waiter = state.withLock { state in
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    // MARK: Delivery (the session, on its event loop)

    func markSubmitted(_ id: Int32) {
        state.withLock { $0.submittedID = id }
    }

    /// The id nghttp2 assigned to the request, once submitted.
    var submittedID: Int32? { state.withLock { $0.submittedID } }

    func markSent(_ id: Int32) {
        state.withLock { $0.sentStreamID = id }
    }

    func deliver(head: Head) {
        state.withLock { $0.head = head }
        wake()
    }

    func deliver(chunk: ByteBuffer) {
        state.withLock { if $0.failure == nil { $0.chunks.append(chunk) } }
        wake()
    }

    func deliverEnd() {
        state.withLock { $0.ended = true }
        wake()
    }

    /// Fails the stream unless it already ended or failed; `false` when it had.
    @discardableResult
    func deliver(failure: HTTP2ClientStreamFailure) -> Bool {
        let failed = state.withLock { state -> Bool in
            guard state.failure == nil, !state.ended else { return false }
            state.failure = failure
            state.chunks.removeAll()
            return true
        }
        if failed { wake() }
        return failed
    }

    /// Whether the consumer already gave up (cancelled, timed out): nothing more needs to reach it.
    var isFinished: Bool { state.withLock { $0.failure != nil || $0.ended } }
}
