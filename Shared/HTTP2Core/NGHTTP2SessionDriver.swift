import CNGHTTP2
import Logging
import NIOCore

/// What the server's and the client's connection handlers share at the C boundary: feeding their nghttp2 session the
/// bytes NIO read (`mem_recv`) and writing what it produces (`mem_send`).
///
/// Both count the nghttp2 calls on the stack (`nghttp2Depth`): a teardown requested from inside one (a callback
/// whose work closed the channel) is only marked pending, and runs when the call has returned, so the session is
/// never deleted under nghttp2's feet.
protocol NGHTTP2SessionDriver: AnyObject {
    /// The `nghttp2_session *`; `nil` before it is created and after `teardown()`.
    var session: OpaquePointer? { get }
    var context: ChannelHandlerContext? { get }
    var logger: Logger { get }
    /// nghttp2 calls on the stack.
    var nghttp2Depth: Int { get set }
    /// Whether a teardown was requested during an nghttp2 call.
    var teardownPending: Bool { get }
    /// Between `channelRead` and `channelReadComplete`: output waits for the end of the burst.
    var inReadBurst: Bool { get set }
    /// A ``flushOutput()`` is running: one asked for meanwhile (from a callback) becomes another round of it.
    var flushing: Bool { get set }
    var flushAgain: Bool { get set }
    /// Deletes the session, or marks the teardown pending while an nghttp2 call is on the stack.
    func teardown()
    /// `mem_send` failed with `code`: the connection cannot go on.
    func sendFailed(_ code: Int32)
    /// `mem_recv` refused the peer's bytes for `reason` (a protocol violation, a flood nghttp2 detected, out of
    /// memory): nothing more can be read, and ``read(_:context:)`` closes the connection after this.
    func receiveFailed(_ reason: String)
    /// Runs after each round of writing in ``flushOutput()``, outside any nghttp2 call.
    func framesWritten()
}

extension NGHTTP2SessionDriver {
    /// `channelRead`'s work: feeds `buffer` to the session as part of a read burst. When nghttp2 refuses the bytes,
    /// what it queued (its GOAWAY) goes out and the connection closes.
    func read(_ buffer: ByteBuffer, context: ChannelHandlerContext) {
        guard session != nil else { return }
        inReadBurst = true
        guard let consumed = receive(buffer), consumed < 0 else { return }
        receiveFailed(Self.errorText(Int32(consumed)))
        inReadBurst = false
        flushOutput()
        context.close(promise: nil)
    }

    /// `channelReadComplete`'s work: the burst is over, and what it produced goes out in one write.
    func readComplete() {
        inReadBurst = false
        flushOutput()
    }

    /// Writes everything nghttp2 has queued (frames, and DATA as far as the peer's windows allow) and flushes once;
    /// closes the connection when nghttp2 wants neither to read nor to write (GOAWAY exchanged, streams done).
    func flushOutput() {
        if flushing {
            flushAgain = true
            return
        }
        flushing = true
        defer { flushing = false }
        repeat {
            flushAgain = false
            writeQueuedFrames()
            framesWritten()
        } while flushAgain
        if let session, let context, nghttp2_session_want_read(session) == 0, nghttp2_session_want_write(session) == 0 {
            context.close(promise: nil)
        }
    }

    /// Feeds `buffer` to the session: `mem_recv`'s result (bytes consumed, or a negative nghttp2 error), or `nil`
    /// when there is no session or it was torn down during the call.
    func receive(_ buffer: ByteBuffer) -> Int? {
        guard let session else { return nil }
        nghttp2Depth += 1
        // nghttp2 reads the bytes during the call only; what it keeps (bodies, headers) our callbacks copy out.
        let consumed = buffer.withUnsafeReadableBytes { bytes in
            nghttp2_session_mem_recv(session, bytes.bindMemory(to: UInt8.self).baseAddress, bytes.count)
        }
        nghttp2Depth -= 1
        if teardownPending {
            teardown()
            return nil
        }
        return consumed
    }

    /// Writes everything nghttp2 has queued (frames, and DATA as far as the peer's windows allow) while the channel
    /// is writable, in buffers of up to 64 KiB, and flushes once.
    func writeQueuedFrames() {
        guard let context else { return }
        var pending: ByteBuffer?
        var wrote = false
        while let session, context.channel.isWritable {
            var frames: UnsafePointer<UInt8>?
            nghttp2Depth += 1
            let length = nghttp2_session_mem_send(session, &frames)
            nghttp2Depth -= 1
            if teardownPending { return teardown() }
            if length < 0 {
                sendFailed(Int32(length))
                return
            }
            guard length > 0, let frames else { break }
            // `frames` points into nghttp2's own buffer, valid only until the next nghttp2 call: copy it now. The
            // buffer is taken out of `pending`, so it is the storage's one reference: while `pending` held it too,
            // each write after the flush's first frame copied the whole buffer (copy-on-write), twice a response.
            var buffer = pending.take() ?? context.channel.allocator.buffer(capacity: Swift.max(length, 16_384))
            buffer.writeBytes(UnsafeRawBufferPointer(start: frames, count: length))
            if buffer.readableBytes >= 65_536 {
                context.write(NIOAny(buffer), promise: nil)
                wrote = true
            } else {
                pending = buffer
            }
        }
        if let pending {
            context.write(NIOAny(pending), promise: nil)
            wrote = true
        }
        if wrote { context.flush() }
    }

    /// nghttp2's text for an error code.
    static func errorText(_ code: Int32) -> String {
        String(cString: nghttp2_strerror(code))
    }
}
