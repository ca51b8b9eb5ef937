import Foundation
import HTTP2Core
import Logging
import NIOCore
import ServiceCore
import Synchronization
import Tracing

/// Drains many woken streams together (a `push.send` to a user with thousands of connected devices wakes them all):
/// per batch of streams, one read of their devices (owner, active), one statement to expire and one read of their
/// pending jobs, one write per stream queued without waiting for it (a slow reader stalls only itself), and one
/// transaction recording `sent` for every write that went out within ``writeGrace``; a later write records itself.
/// A stream whose share was a full batch, or that was woken again meanwhile, drains on by itself.
///
/// The batches are pipelined: while one batch waits for its writes and records them, the next one reads and writes
/// (at most one batch recording at a time), so the last device of a large wake-up waits for the batches before it to
/// be read and written, not recorded.
///
/// Every stream of a hub comes from the one route, so they share their repositories, clock, metrics and tracing:
/// the batch uses the first stream's.
struct DirectBatchDrain: Sendable {
    /// Streams per database round.
    static let batchSize = 500
    /// How long a batch waits for its writes before recording those that went out.
    static let writeGrace: Duration = .milliseconds(500)

    /// One stream's write in a batch.
    struct Written: Sendable {
        let stream: DirectLiveStream
        let jobs: [DeliveryJob]
        let spans: [any Span]
        let last: Int64
        let sent: Bool
        /// When the write went out (or failed): a delivery's latency ends here, not when its batch records it.
        let at: Date
    }

    /// Drains `streams` (those closed or already draining are skipped), batch after batch; returns once every batch
    /// has recorded its writes.
    static func run(_ streams: [DirectLiveStream]) async {
        var recording: Task<Void, Never>?
        for start in stride(from: 0, to: streams.count, by: batchSize) {
            let batch = streams[start..<min(start + batchSize, streams.count)].compactMap { stream in
                stream.beginBatchDrain().map { (stream: stream, sequence: $0) }
            }
            guard let first = batch.first?.stream.stream else { continue }
            do {
                let writes = try await write(batch, using: first)
                // The previous batch's record first: one transaction at a time, in the order the batches were written.
                await recording?.value
                recording = Task { await record(await writes.collect(upTo: writeGrace), using: first) }
            } catch {
                first.logger.debug("direct.batch.failed", metadata: ["error": "\(error)"])
                for (stream, _) in batch { stream.fail() }  // the clients reconnect and read what is pending
            }
        }
        await recording?.value
    }

    /// Reads the batch's devices and pending jobs and queues each stream's write; returns the writes, for ``record``.
    private static func write(_ batch: [(stream: DirectLiveStream, sequence: Int64)], using shared: DirectEventStream)
        async throws -> BatchWrites
    {
        let devices = try await shared.devices.devices(ids: batch.map(\.stream.deviceID))
        let owners = Dictionary(devices.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var open: [(stream: DirectLiveStream, sequence: Int64)] = []
        var sequences: [String: Int64] = [:]
        for entry in batch {
            guard let device = owners[entry.stream.deviceID], device.ownerID == entry.stream.ownerID,
                device.isActive, !entry.stream.stream.tokenExpired()
            else {
                entry.stream.endBatchDrainClosing()
                continue
            }
            open.append(entry)
            sequences[entry.stream.deviceID] = min(sequences[entry.stream.deviceID] ?? entry.sequence, entry.sequence)
        }
        let pending = try await shared.deliveries.pendingJobs(
            after: sequences, now: shared.now(), limit: DirectEventStream.batchSize)
        let writes = BatchWrites()
        for (stream, sequence) in open {
            // A device's two streams may stand at different sequences: each takes what it has not written.
            let jobs = pending[stream.deviceID, default: []].filter { $0.status == .queued || $0.sequence > sequence }
            guard !jobs.isEmpty else {
                stream.endBatchDrain(last: sequence, more: false)
                continue
            }
            var events = ByteBuffer()
            for job in jobs {
                DirectEventStream.write(job, to: &events)
            }
            let spans = jobs.compactMap {
                shared.tracing.start("direct.write", job: $0, platform: .direct, kind: .producer)
            }
            let last = jobs.reduce(sequence) { max($0, $1.sequence) }
            writes.expect()
            stream.post(events) { sent in
                let written = Written(
                    stream: stream, jobs: jobs, spans: spans, last: last, sent: sent, at: shared.now())
                if !writes.complete(written) {
                    Task { await record([written], using: shared) }  // after the batch recorded: on its own
                }
            }
        }
        return writes
    }

    /// Records `sent` for the writes that went out (one transaction), ends their spans, and lets each stream go on.
    private static func record(_ written: [Written], using shared: DirectEventStream) async {
        let (sent, failed) = (written.filter(\.sent), written.filter { !$0.sent })
        for write in failed {
            for span in write.spans {
                span.recordError(HTTP2CoreError.streamClosed)
                span.end()
            }
            write.stream.fail()
        }
        guard !sent.isEmpty else { return }
        for span in sent.flatMap(\.spans) { span.end() }
        let recordedAt = shared.now()
        // A device's two streams may both have written a job: it is recorded, and its first write counted, once.
        var jobs: [DeliveryJob] = []
        var listed: Set<Int64> = []
        for job in sent.flatMap(\.jobs) where listed.insert(job.sequence).inserted { jobs.append(job) }
        var uncounted: Set<Int64>
        do {
            uncounted = try await shared.deliveries.record(.sent, for: jobs, now: recordedAt)
        } catch {
            shared.logger.debug("direct.batch.record_failed", metadata: ["error": "\(error)"])
            for write in sent { write.stream.fail() }  // not recorded: written again on reconnect
            return
        }
        for write in sent {
            for job in write.jobs where uncounted.remove(job.sequence) != nil {
                shared.metrics.directDeliveryLatency.recordLatency(since: job.sentAt, until: write.at)
            }
            shared.metrics.eventsWritten.increment(by: write.jobs.count)
            for (app, written) in Dictionary(grouping: write.jobs, by: \.appID) {
                shared.deliveryCounts(app).increment("sent", by: written.count)
            }
            write.stream.endBatchDrain(last: write.last, more: write.jobs.count == DirectEventStream.batchSize)
        }
    }
}

/// The writes of one batch: completions arriving before the batch stops waiting are its to record; later ones are
/// not (their callers record them).
private final class BatchWrites: Sendable {
    private struct State {
        var outstanding = 0
        var done: [DirectBatchDrain.Written] = []
        var finished = false
        /// The grace passed before the batch started waiting.
        var timedOut = false
        var waiter: CheckedContinuation<[DirectBatchDrain.Written], Never>?
    }
    private let state = Mutex(State())

    func expect() { state.withLock { $0.outstanding += 1 } }

    /// Takes `written` into the batch; `false` once the batch stopped waiting.
    func complete(_ written: DirectBatchDrain.Written) -> Bool {
        let (taken, resume) = state.withLock {
            state -> (Bool, (CheckedContinuation<[DirectBatchDrain.Written], Never>, [DirectBatchDrain.Written])?) in
            guard !state.finished else { return (false, nil) }
            state.done.append(written)
            state.outstanding -= 1
            guard state.outstanding == 0, let waiter = state.waiter else { return (true, nil) }
            state.finished = true
            state.waiter = nil
            return (true, (waiter, state.done))
        }
        if let (waiter, done) = resume { waiter.resume(returning: done) }
        return taken
    }

    /// The writes completed when all are, or when `grace` has passed.
    func collect(upTo grace: Duration) async -> [DirectBatchDrain.Written] {
        let timer = Task {
            try? await Task.sleep(for: grace)
            self.stopWaiting()
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> [DirectBatchDrain.Written]? in
                guard state.outstanding > 0, !state.finished, !state.timedOut else {
                    state.finished = true
                    return state.done
                }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    private func stopWaiting() {
        let resume = state.withLock {
            state -> (CheckedContinuation<[DirectBatchDrain.Written], Never>, [DirectBatchDrain.Written])? in
            guard !state.finished else { return nil }
            guard let waiter = state.waiter else {
                state.timedOut = true
                return nil
            }
            state.finished = true
            state.waiter = nil
            return (waiter, state.done)
        }
        if let (waiter, done) = resume { waiter.resume(returning: done) }
    }
}
