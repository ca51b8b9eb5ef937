import Foundation
import Logging
import NIOCore
import ServiceCore
import SharedModels
import Tracing

/// One `GET /devices/{deviceId}/events` stream: writes the device's pending ids in sequence order, then new ones as
/// `push.send` queues them, until the client goes away, the device is removed or changes hands, the token it was
/// opened with expires, a newer stream of the device pushes it out, or the service shuts down.
///
/// An idle stream is no task and costs no database work: the hub keeps it as a ``DirectLiveStream`` (a few fields
/// and its response body); the hub's one keepalive timer writes keepalives from memory (``DirectHub/keepalive()``),
/// and the database is read only when a wake-up (from `push.send`, another replica, or the service's periodic
/// `DirectSweep`) says something may be pending; a task then drains it and ends.
///
/// Each id is written as a Server-Sent Event carrying the JSON-RPC notification `push.notify` (never the payload)
/// and recorded `sent`; everything not acknowledged is written again on the next connection (at least once).
struct DirectEventStream: Sendable {
    let deviceID: String
    let ownerID: String
    /// When the access token the stream was opened with expires; the stream ends at the first keepalive tick or
    /// wake-up after it.
    let expiresAt: Date?
    /// The sign-in session of that token (`sid`): the stream ends when auth reports it revoked (logout).
    let sessionID: String?
    let devices: any DeviceRepository
    let deliveries: any DeliveryRepository
    let hub: DirectHub
    let now: @Sendable () -> Date
    let logger: Logger
    var metrics: DispatchMetrics = .disabled
    /// `securepush_deliveries_total{platform="direct"}`.
    var deliveryCounts: PerAppCounters = DispatchMetrics.disabled.deliveries(
        .direct, apps: AppCatalog(environmentProviders: []))
    /// A span for each event written.
    var tracing: DeliveryTracing = .off

    /// Jobs read from the database per query.
    static let batchSize = 100
    /// The comment written when nothing else was, so proxies and clients see the stream is alive.
    static let keepalive = ByteBuffer(string: ": keepalive\n\n")

    /// Opens the stream on `writer`: registers it with the hub, writes what is pending, and returns; from then on
    /// the stream lives in the hub without a task. Returns `nil` (the body ended) when the hub is closed (shutting
    /// down). The stream ends when the response closes (the client reset it or went away; what is being written and
    /// recorded finishes first), through the hub, or on the service's shutdown (``DirectHub/closeAll()``).
    @discardableResult
    func start(writer: some EventStreamWriter) async -> DirectLiveStream? {
        let live = DirectLiveStream(stream: self, writer: writer) { [hub] live in
            Task {
                await hub.unsubscribe(live)
                live.forgotten()
            }
        }
        guard await hub.subscribe(live) else {
            writer.end()
            return nil
        }
        logger.debug("direct.stream.opened", metadata: [LogMetadataKey.deviceID: "\(deviceID)"])
        metrics.openStreams.increment()
        writer.onClose { [live] in live.close() }
        // The opening drain, in the request's task. It checks ownership once more after subscribing: an unregister
        // or a move between the route's check and the subscription closed no stream of ours.
        await live.drain()
        return live
    }

    /// Whether the access token the stream was opened with has expired (the SDK reconnects with a fresh one).
    func tokenExpired() -> Bool {
        guard let expiresAt, now() >= expiresAt else { return false }
        logger.debug("direct.stream.token_expired", metadata: [LogMetadataKey.deviceID: "\(deviceID)"])
        return true
    }

    /// Writes every job not yet written (queued, whatever its sequence) and every written-but-unacknowledged job after
    /// `sequence`, in sequence order; returns the highest sequence written.
    func drain(after sequence: Int64, writer: some EventStreamWriter) async throws -> Int64 {
        var last = sequence
        while true {
            let jobs = try await deliveries.pendingJobs(
                deviceID: deviceID, after: last, now: now(), limit: Self.batchSize)
            guard !jobs.isEmpty else { return last }
            // One write and one transaction per batch, not per id: under load a wake-up finds many jobs.
            var events = ByteBuffer()
            for job in jobs {
                Self.write(job, to: &events)
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
            let first = try await deliveries.record(.sent, for: jobs, now: writtenAt)
            // Latency to the first write only, not a reconnect's re-send (nor another stream's write of the same job).
            for job in jobs where first.contains(job.sequence) {
                metrics.directDeliveryLatency.recordLatency(since: job.sentAt, until: writtenAt)
            }
            metrics.eventsWritten.increment(by: jobs.count)
            for (app, written) in Dictionary(grouping: jobs, by: \.appID) {
                deliveryCounts(app).increment("sent", by: written.count)
            }
            if jobs.count < Self.batchSize { return last }
        }
    }

    /// The device was unregistered or moved to another user: this stream must stop.
    func isStillOwned() async throws -> Bool {
        guard let device = try await devices.device(id: deviceID) else { return false }
        return device.ownerID == ownerID && device.isActive
    }

    /// `id: <notificationId>`, `event: push.notify`, and the JSON-RPC notification as `data` (with the send's
    /// `traceparent` when it was traced: the device echoes it on `store.get`).
    static func write(_ job: DeliveryJob, to events: inout ByteBuffer) {
        let params = Push.Notify.Params(notificationId: job.notificationID, traceparent: job.traceParent?.description)
        events.writeString("id: \(job.notificationID)\nevent: \(Push.Notify.name)\ndata: \(data(of: params))\n\n")
    }

    /// The `push.notify` JSON-RPC notification (no `id`) as the event's `data`, byte for byte what the encoder
    /// writes for `RPCRequestEnvelope(method: "push.notify", params: params, id: nil)`.
    static func data(of params: Push.Notify.Params) -> String {
        var writer = JSONWriter(capacity: 160)
        writer.beginObject()
        writer.key("jsonrpc")
        writer.raw("\"2.0\"")
        writer.member("method", Push.Notify.name)
        writer.key("params")
        params.write(to: &writer)
        writer.endObject()
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}
