import Foundation
import SharedModels

/// Where sends, their idempotency keys and their delivery jobs are kept. `SQLDeliveryRepository` keeps them in
/// SQLite or PostgreSQL; tests wrap or replace it.
public protocol DeliveryRepository: Sendable {
    /// Reserves `(clientID, key)` before the store is called, so concurrent duplicates cannot both send.
    /// A pending reservation made before `staleBefore` (its holder crashed or hung) is taken over.
    /// `fingerprint` digests what the key is used with (recipients, payload, options): a key first used with another
    /// fingerprint is ``IdempotencyReservation/reusedWithOtherParameters``.
    func reserve(clientID: String, key: String, fingerprint: String, now: Date, staleBefore: Date) async throws
        -> IdempotencyReservation

    /// Gives a reservation up (the store call failed), so a retry with the same key can proceed.
    func release(_ claim: IdempotencyClaim) async throws

    /// Records sends to many recipients in one transaction: each send not recorded before (by its notification id:
    /// a retried call after a crash finds those of the first call recorded) gets one `queued` job per active device of
    /// its recipient in its app (limited to ``SendRecord/deviceIDs``). Returns the new jobs. Collapses as
    /// ``recordSend(_:claim:)`` does.
    func recordSends(_ sends: [SendRecord]) async throws -> [DeliveryJob]

    /// Marks `claim`'s key done with the whole result of a send to many (its first notification names the send, so
    /// the key is forgotten with it); `false` when the claim was taken over or released meanwhile.
    func complete(_ claim: IdempotencyClaim, firstNotificationID: String, result: Push.SendToMany.Result)
        async throws -> Bool

    /// In one transaction: records the send, one `queued` job per active device of the recipient, and completes
    /// `claim`. Throws `DispatchError.sendInProgress` when the claim was taken over meanwhile. A send with a
    /// ``SendRecord/collapseID`` ends the waiting (`queued`, `retrying`) jobs of the same client's earlier sends with
    /// that id to the same recipient in the same app `collapsed`.
    func recordSend(_ send: SendRecord, claim: IdempotencyClaim?) async throws -> RecordedSend

    /// Claims up to `limit` scheduled sends due at `now` (and those whose claimer's lease lapsed) for `owner` until
    /// `leaseUntil`, earliest due first: on PostgreSQL each is claimed by one replica (`FOR UPDATE SKIP LOCKED`).
    func claimDueSchedules(owner: String, now: Date, leaseUntil: Date, limit: Int) async throws -> [SendRecord]

    /// Records claimed scheduled sends as sent in one transaction: each still claimed by `owner` gets one `queued`
    /// job per targeted active device (``SendRecord/deviceIDs``) and collapses as ``recordSend(_:claim:)`` does.
    /// Returns the new jobs.
    func recordDueSchedules(_ sends: [SendRecord], owner: String, now: Date) async throws -> [DeliveryJob]

    /// Hands claimed scheduled sends back (the store could not publish them): any replica claims them again from
    /// `claimableAfter`. They stay past cancelling (the store may have shown them before its answer was lost).
    func releaseSchedules(_ notificationIDs: [String], owner: String, claimableAfter: Date) async throws

    /// Cancels a scheduled send of `clientID`'s: what happened, decided by one statement against the claim.
    func cancel(notificationID: String, clientID: String, now: Date) async throws -> CancelOutcome

    /// Where `clientID`'s send stands and when it is (or was) due; `nil` when `clientID` did not send it.
    func sendState(notificationID: String, clientID: String) async throws -> (state: Push.SendState, sendAt: Date?)?

    /// The deliveries of a notification, oldest first, when `clientID` sent it (otherwise `nil`);
    /// deliveries past the notification's expiry are marked `expired` first.
    func deliveries(notificationID: String, clientID: String, now: Date) async throws -> [Push.Status.DeliveryState]?

    /// The trace context stored with the notification's jobs (the `push.send` span that queued them); `nil` when the
    /// send was not traced or targeted no device. Ask only after ``deliveries(notificationID:clientID:now:)`` said
    /// the caller sent it.
    func traceParent(notificationID: String) async throws -> TraceParent?

    /// A device's pending jobs, not expired, in sequence order: every `queued` one (whatever its sequence: with
    /// several replicas, transactions commit out of sequence order) and the `sent` ones above `sequence`; its jobs
    /// past expiry are marked `expired` first.
    func pendingJobs(deviceID: String, after sequence: Int64, now: Date, limit: Int) async throws -> [DeliveryJob]

    /// ``pendingJobs(deviceID:after:now:limit:)`` for many devices at once (device id → its `sequence`), in one
    /// statement to expire and one read: a `push.send` to a user with thousands of connected devices wakes them all.
    /// At most `limit` jobs per device, in sequence order; devices with none are absent.
    func pendingJobs(after sequences: [String: Int64], now: Date, limit: Int) async throws -> [String: [DeliveryJob]]

    /// Which of `deviceIDs` have a `queued` job not yet expired (read only): the direct channel's periodic sweep
    /// wakes their streams, in case the wake-up for that job was lost.
    func devicesWithQueuedJobs(among deviceIDs: [String], now: Date) async throws -> Set<String>

    /// The jobs waiting for a delivery attempt (`queued` or `retrying`, not expired), by platform: how many, and when
    /// the oldest one's send was accepted (read only; for the queue metrics).
    func queueStatistics(now: Date) async throws -> [Platform: DeliveryQueueStatistics]

    /// Records what an attempt on each of `jobs` achieved, without a lease (the direct channel's streams), in one
    /// transaction; a job that ended meanwhile (acknowledged, expired) keeps its state. Returns the sequences of the
    /// jobs whose first attempt this was, by the rows' own count: two streams of one device that both wrote a job
    /// they read as queued get it once between them (a delivery's latency is measured at its first write only).
    @discardableResult
    func record(_ outcome: DeliveryOutcome, for jobs: [DeliveryJob], now: Date) async throws -> Set<Int64>

    /// Leases up to `limit` jobs of `platform` that are due (`queued` or `retrying`, next attempt at or before `now`,
    /// not expired, lease free or lapsed) to `owner` until `leaseUntil`, earliest due first. Unfinished jobs of
    /// `platform` past expiry are marked `expired` first.
    func claimDue(platform: Platform, owner: String, now: Date, leaseUntil: Date, limit: Int) async throws
        -> [DeliveryJob]

    /// Records what an attempt on a leased job achieved and frees the lease, in one transaction: attempts + 1, status,
    /// last error, next attempt (for `retry`), updated time. Returns the job's new status, or `nil` when `owner` no
    /// longer holds the lease or the job ended meanwhile (nothing is recorded then).
    func record(_ outcome: DeliveryOutcome, for job: DeliveryJob, leaseOwner owner: String, now: Date) async throws
        -> DeliveryStatus?

    /// Frees a lease without counting an attempt (the attempt was abandoned at shutdown, or this replica does not
    /// serve the job's app): any worker may claim the job again from `claimableAfter` (`nil`: at once).
    func releaseLease(of job: DeliveryJob, owner: String, claimableAfter: Date?) async throws

    /// Extends every lease `owner` holds to `leaseUntil` (a live worker keeps its slow attempts); returns how many.
    func renewLeases(owner: String, until leaseUntil: Date) async throws -> Int

    /// When the next job of `platform` may become claimable: the earliest next attempt after `after`, or the earliest
    /// lease that will lapse; `nil` when nothing is waiting.
    func nextDueDate(platform: Platform, after: Date) async throws -> Date?

    /// Marks the device's delivery of the notification `acknowledged`; `nil` when there is no such delivery.
    func acknowledge(deviceID: String, notificationID: String, now: Date) async throws -> DeliveryAcknowledgement?

    /// Marks every unfinished job past its expiry `expired`; returns how many.
    func expireDue(now: Date) async throws -> Int

    /// Deletes sends (with their jobs and idempotency keys) that expired before `cutoff`, and idempotency keys
    /// reserved before `keysBefore` (`nil`: the pending ones reserved before `cutoff`); returns how many of each.
    func purge(before cutoff: Date, keysBefore: Date?) async throws -> DeliveryPurge
}

/// What one purge of push-dispatch's send records deleted.
public struct DeliveryPurge: Sendable, Equatable {
    /// Send records.
    public var sends = 0
    /// Delivery records of those sends.
    public var deliveries = 0
    /// Idempotency keys (with their sends, or on their own).
    public var idempotencyKeys = 0

    public init(sends: Int = 0, deliveries: Int = 0, idempotencyKeys: Int = 0) {
        self.sends = sends
        self.deliveries = deliveries
        self.idempotencyKeys = idempotencyKeys
    }
}

/// A reserved idempotency key: the caller may call the store.
public struct IdempotencyClaim: Sendable, Hashable {
    public var clientID: String
    public var key: String
    /// Identifies this reservation, so a holder that lost it to a takeover cannot complete it.
    public var reservationID: String

    public init(clientID: String, key: String, reservationID: String) {
        self.clientID = clientID
        self.key = key
        self.reservationID = reservationID
    }
}

/// The outcome of `DeliveryRepository.reserve`.
public enum IdempotencyReservation: Sendable, Hashable {
    /// The key is ours: call the store, then `recordSend` with the claim (or `release` it on failure).
    case reserved(IdempotencyClaim)
    /// A send with this key finished: its first result, to be returned again.
    case completed(Push.Send.Result)
    /// A send to many with this key finished: its whole first result.
    case completedMany(Push.SendToMany.Result)
    /// The key was first used with other recipients, payload or options.
    case reusedWithOtherParameters
    /// A send with this key is still running.
    case inProgress
}

/// A send as push-dispatch records it once the store has the payload.
public struct SendRecord: Sendable, Hashable {
    /// The store's id for the notification.
    public var notificationID: String
    /// The sending client (its token's subject).
    public var clientID: String
    public var recipientID: String
    public var expiresAt: Date
    public var createdAt: Date
    /// The devices targeted (sealed sends: exactly those the store sealed for, or kept a copy for); `nil`: every active
    /// device of the recipient.
    public var deviceIDs: Set<String>?
    /// The trace context of the `push.send` span, when the send was traced: kept with the send, so its jobs' attempts
    /// join its trace.
    public var traceParent: TraceParent?
    /// The app whose devices of the recipient are targeted.
    public var appID: String
    /// The send's priority for the providers; `nil`: their default.
    public var priority: Push.Priority?
    /// The send's collapse id (scoped to client, recipient and app).
    public var collapseID: String?
    /// When a scheduled send is due (`nil`: sent at once): it is recorded `scheduled`, without jobs, until then.
    public var sendAt: Date?
    /// Whether only sealed devices are targeted (kept for a scheduled send, whose devices are resolved when due).
    public var sealedOnly: Bool = false

    public init(
        notificationID: String, clientID: String, recipientID: String, expiresAt: Date, createdAt: Date,
        deviceIDs: Set<String>? = nil, traceParent: TraceParent? = nil, appID: String = AppCatalog.environmentAppID,
        priority: Push.Priority? = nil, collapseID: String? = nil, sendAt: Date? = nil
    ) {
        self.sendAt = sendAt
        self.priority = priority
        self.collapseID = collapseID
        self.appID = appID
        self.deviceIDs = deviceIDs
        self.traceParent = traceParent
        self.notificationID = notificationID
        self.clientID = clientID
        self.recipientID = recipientID
        self.expiresAt = expiresAt
        self.createdAt = createdAt
    }
}

/// What ``DeliveryRepository/cancel(notificationID:clientID:now:)`` found.
public enum CancelOutcome: Sendable, Hashable {
    /// It was scheduled and is cancelled now.
    case cancelled
    /// It was cancelled before.
    case alreadyCancelled
    /// It was due and its sending started (or it was never scheduled).
    case alreadySent
    /// The client sent no such notification.
    case notFound
}

/// A recorded send: the `push.send` result and the jobs to hand to the providers.
public struct RecordedSend: Sendable, Hashable {
    public var result: Push.Send.Result
    public var jobs: [DeliveryJob]

    public init(result: Push.Send.Result, jobs: [DeliveryJob]) {
        self.result = result
        self.jobs = jobs
    }
}

extension DeliveryRepository {
    /// Records what an attempt on `job` achieved, without a lease; see ``record(_:for:now:)-(_,[DeliveryJob],_)``.
    public func record(_ outcome: DeliveryOutcome, for job: DeliveryJob, now: Date) async throws {
        try await record(outcome, for: [job], now: now)
    }
}

/// What ``DeliveryRepository/acknowledge(deviceID:notificationID:now:)`` did to an existing delivery.
public enum DeliveryAcknowledgement: Sendable, Hashable {
    /// The delivery was unfinished and is now `acknowledged`: its platform, and when its send was accepted (`nil`
    /// when not known).
    case acknowledged(platform: Platform, sentAt: Date?)
    /// The delivery had ended before (acknowledged already, expired, failed): nothing changed.
    case alreadyEnded
}

/// The waiting jobs of one platform (``DeliveryRepository/queueStatistics(now:)``).
public struct DeliveryQueueStatistics: Sendable, Hashable {
    /// Jobs `queued` or `retrying`, not expired.
    public var depth: Int
    /// When the send of the oldest of them was accepted.
    public var oldestSentAt: Date

    public init(depth: Int, oldestSentAt: Date) {
        self.depth = depth
        self.oldestSentAt = oldestSentAt
    }
}
