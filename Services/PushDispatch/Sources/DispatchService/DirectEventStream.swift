import Foundation
import Logging
import NIOCore
import ServiceCore
import SharedModels
import Tracing

/// One open `GET /devices/{deviceId}/events` stream: writes the device's pending ids in sequence order, then new
/// ones as `push.send` queues them, until the client goes away, the device is removed or changes hands, the token it
/// was opened with expires, a newer stream of the device pushes it out, or the service shuts down.
///
/// An idle stream costs no database work: keepalives are written from memory, and the database is read only when a
/// wake-up (from `push.send`, another replica, or the service's periodic `DirectSweep`) says something may be pending.
///
/// Each id is written as a Server-Sent Event carrying the JSON-RPC notification `push.notify` (never the payload)
/// and recorded `sent`; everything not acknowledged is written again on the next connection (at least once).
struct DirectEventStream: Sendable {
    let deviceID: String
    let ownerID: String
    /// When the access token the stream was opened with expires; the stream ends at the first tick after it.
    let expiresAt: Date?
    /// The sign-in session of that token (`sid`): the stream ends when auth reports it revoked (logout).
    let sessionID: String?
    let devices: any DeviceRepository
    let deliveries: any DeliveryRepository
    let hub: DirectHub
    let keepaliveInterval: Duration
    let now: @Sendable () -> Date
    let logger: Logger
    var metrics: DispatchMetrics = .disabled
    /// `securepush_deliveries_total{platform="direct"}`.
    var deliveryCounts: CounterFamily = DispatchMetrics.disabled.deliveries(.direct)
    /// A span for each event written.
    var tracing: DeliveryTracing = .off

    /// Jobs read from the database per query.
    static let batchSize = 100
    /// The comment written when nothing else was, so proxies and clients see the stream is alive.
    static let keepalive = ByteBuffer(string: ": keepalive\n\n")

    /// Streams events into `writer`; returns after ending the body, throws when the client is gone. The stream ends
    /// when the response closes (the client reset it or went away; what is being written and recorded finishes
    /// first) and, on the service's shutdown, through the hub (``DirectHub/closeAll()``).
    func run(writer: some EventStreamWriter) async throws {
        guard let subscription = await hub.subscribe(deviceID: deviceID, ownerID: ownerID, sessionID: sessionID) else {
            writer.end()
            return
        }
        logger.debug("direct.stream.opened", metadata: [LogMetadataKey.deviceID: "\(deviceID)"])
        writer.onClose { [signal = subscription.signal] in signal.close() }
        metrics.openStreams.increment()
        defer { metrics.openStreams.decrement() }
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { [signal = subscription.signal, keepaliveInterval] in
                    while true {
                        do { try await Task.sleep(for: keepaliveInterval) } catch { return }
                        signal.tick()
                    }
                }
                try await pump(subscription.signal, writer: writer)
                group.cancelAll()
            }
        } catch {
            await hub.unsubscribe(subscription)
            logger.debug(
                "direct.stream.dropped", metadata: [LogMetadataKey.deviceID: "\(deviceID)", "error": "\(error)"])
            throw error
        }
        await hub.unsubscribe(subscription)
        logger.debug("direct.stream.ended", metadata: [LogMetadataKey.deviceID: "\(deviceID)"])
        writer.end()
    }

    /// Writes pending jobs now and after every wake-up; a keepalive tick touches no database, it only writes the
    /// keepalive comment (and ends the stream once its token has expired).
    private func pump(_ signal: WakeUpSignal, writer: some EventStreamWriter) async throws {
        // Once more after subscribing: an unregister or a move between the route's check and the subscription closed
        // no stream of ours, and no later wake-up would tell us.
        guard try await isStillOwned() else { return }
        var lastSequence = try await drain(after: 0, writer: writer)
        while true {
            switch await signal.wait() {
            case .closed:
                return
            case .keepalive:
                guard !tokenExpired() else { return }
                try await writer.send(Self.keepalive)
            case .woken(let keepalive):
                guard !tokenExpired(), try await isStillOwned() else { return }
                lastSequence = try await drain(after: lastSequence, writer: writer)
                if keepalive { try await writer.send(Self.keepalive) }
            }
        }
    }

    /// Whether the access token the stream was opened with has expired (the SDK reconnects with a fresh one).
    private func tokenExpired() -> Bool {
        guard let expiresAt, now() >= expiresAt else { return false }
        logger.debug("direct.stream.token_expired", metadata: [LogMetadataKey.deviceID: "\(deviceID)"])
        return true
    }

    /// Writes every job not yet written (queued, whatever its sequence) and every written-but-unacknowledged job after
    /// `sequence`, in sequence order; returns the highest sequence written.
    private func drain(after sequence: Int64, writer: some EventStreamWriter) async throws -> Int64 {
        var last = sequence
        while true {
            let jobs = try await deliveries.pendingJobs(
                deviceID: deviceID, after: last, now: now(), limit: Self.batchSize)
            guard !jobs.isEmpty else { return last }
            // One write and one transaction per batch, not per id: under load a wake-up finds many jobs.
            var events = ByteBuffer()
            for job in jobs {
                var event = try Self.event(for: job)
                events.writeBuffer(&event)
                // A queued job may sort before `last` (another replica committed it late): never move back.
                last = max(last, job.sequence)
            }
            let spans = jobs.compactMap { tracing.start("direct.write", job: $0, platform: .direct, kind: .producer) }
            do {
                try await writer.send(events)
            } catch {
                for span in spans { span.recordError(error) }
                for span in spans { span.end() }
                throw error
            }
            for span in spans { span.end() }
            let writtenAt = now()
            try await deliveries.record(.sent, for: jobs, now: writtenAt)
            // Latency to the first write only: a job written before (a reconnect re-sends it) is no longer `queued`.
            for job in jobs where job.status == .queued {
                metrics.directDeliveryLatency.recordLatency(since: job.sentAt, until: writtenAt)
            }
            metrics.eventsWritten.increment(by: jobs.count)
            deliveryCounts.increment("sent", by: jobs.count)
            if jobs.count < Self.batchSize { return last }
        }
    }

    /// The device was unregistered or moved to another user: this stream must stop.
    private func isStillOwned() async throws -> Bool {
        guard let device = try await devices.device(id: deviceID) else { return false }
        return device.ownerID == ownerID && device.isActive
    }

    /// `id: <notificationId>`, `event: push.notify`, and the JSON-RPC notification as `data` (with the send's
    /// `traceparent` when it was traced: the device echoes it on `store.get`).
    static func event(for job: DeliveryJob) throws -> ByteBuffer {
        let params = Push.Notify.Params(notificationId: job.notificationID, traceparent: job.traceParent?.description)
        let notification = RPCRequestEnvelope(method: Push.Notify.name, params: params, id: nil)
        let data = String(decoding: try RPCCodec.makeEncoder().encode(notification), as: UTF8.self)
        return ByteBuffer(string: "id: \(job.notificationID)\nevent: \(Push.Notify.name)\ndata: \(data)\n\n")
    }
}
