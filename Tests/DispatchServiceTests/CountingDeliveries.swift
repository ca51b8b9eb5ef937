import DispatchService
import Foundation
import SharedModels
import Synchronization
import TestSupport

/// A `DeliveryRepository` that counts the calls made to it (and the worker's claims apart) and forwards everything to
/// the real one. Batch records (`record(_:for:now:)` with a list of jobs) can be held back until released.
final class CountingDeliveries: DeliveryRepository {
    private let base: any DeliveryRepository
    private let claimCount = Mutex(0)
    private let callCount = Mutex(0)
    /// Where batch records wait while held.
    private let batchRecordGate = CallGate()

    init(_ base: any DeliveryRepository) {
        self.base = base
    }

    /// How often `claimDue` was called.
    var claims: Int { claimCount.withLock { $0 } }
    /// How many calls of any kind were made: reads and writes alike.
    var calls: Int { callCount.withLock { $0 } }

    private func counted() {
        callCount.withLock { $0 += 1 }
    }

    /// How many batch records have started (held or not).
    var batchRecordsStarted: Int { batchRecordGate.arrivals }

    /// From now on a batch record waits, before it writes, until ``releaseBatchRecords()``.
    func holdBatchRecords() { batchRecordGate.close() }

    /// Lets the held batch records (and every later one) write.
    func releaseBatchRecords() { batchRecordGate.open() }

    func claimDue(platform: Platform, owner: String, now: Date, leaseUntil: Date, limit: Int) async throws
        -> [DeliveryJob]
    {
        counted()
        claimCount.withLock { $0 += 1 }
        return try await base.claimDue(platform: platform, owner: owner, now: now, leaseUntil: leaseUntil, limit: limit)
    }

    func reserve(clientID: String, key: String, fingerprint: String, now: Date, staleBefore: Date) async throws
        -> IdempotencyReservation
    {
        counted()
        return try await base.reserve(
            clientID: clientID, key: key, fingerprint: fingerprint, now: now, staleBefore: staleBefore)
    }

    func claimDueSchedules(owner: String, now: Date, leaseUntil: Date, limit: Int) async throws -> [SendRecord] {
        counted()
        return try await base.claimDueSchedules(owner: owner, now: now, leaseUntil: leaseUntil, limit: limit)
    }

    func recordDueSchedules(_ sends: [SendRecord], owner: String, now: Date) async throws -> [DeliveryJob] {
        counted()
        return try await base.recordDueSchedules(sends, owner: owner, now: now)
    }

    func releaseSchedules(_ notificationIDs: [String], owner: String, claimableAfter: Date) async throws {
        counted()
        try await base.releaseSchedules(notificationIDs, owner: owner, claimableAfter: claimableAfter)
    }

    func cancel(notificationID: String, clientID: String, now: Date) async throws -> CancelOutcome {
        counted()
        return try await base.cancel(notificationID: notificationID, clientID: clientID, now: now)
    }

    func sendState(notificationID: String, clientID: String) async throws -> (state: Push.SendState, sendAt: Date?)? {
        counted()
        return try await base.sendState(notificationID: notificationID, clientID: clientID)
    }

    func recordSends(_ sends: [SendRecord]) async throws -> [DeliveryJob] {
        counted()
        return try await base.recordSends(sends)
    }

    func complete(_ claim: IdempotencyClaim, firstNotificationID: String, result: Push.SendToMany.Result)
        async throws -> Bool
    {
        counted()
        return try await base.complete(claim, firstNotificationID: firstNotificationID, result: result)
    }

    func release(_ claim: IdempotencyClaim) async throws {
        counted()
        return try await base.release(claim)
    }

    func recordSend(_ send: SendRecord, claim: IdempotencyClaim?) async throws -> RecordedSend {
        counted()
        return try await base.recordSend(send, claim: claim)
    }

    func deliveries(notificationID: String, clientID: String, now: Date) async throws -> [Push.Status.DeliveryState]? {
        counted()
        return try await base.deliveries(notificationID: notificationID, clientID: clientID, now: now)
    }

    func traceParent(notificationID: String) async throws -> TraceParent? {
        counted()
        return try await base.traceParent(notificationID: notificationID)
    }

    func pendingJobs(deviceID: String, after sequence: Int64, now: Date, limit: Int) async throws -> [DeliveryJob] {
        counted()
        return try await base.pendingJobs(deviceID: deviceID, after: sequence, now: now, limit: limit)
    }

    func pendingJobs(after sequences: [String: Int64], now: Date, limit: Int) async throws -> [String: [DeliveryJob]] {
        counted()
        return try await base.pendingJobs(after: sequences, now: now, limit: limit)
    }

    func record(_ outcome: DeliveryOutcome, for jobs: [DeliveryJob], now: Date) async throws -> Set<Int64> {
        counted()
        await batchRecordGate.pass()
        return try await base.record(outcome, for: jobs, now: now)
    }

    func record(_ outcome: DeliveryOutcome, for job: DeliveryJob, leaseOwner owner: String, now: Date) async throws
        -> DeliveryStatus?
    {
        counted()
        return try await base.record(outcome, for: job, leaseOwner: owner, now: now)
    }

    func releaseLease(of job: DeliveryJob, owner: String, claimableAfter: Date?) async throws {
        counted()
        return try await base.releaseLease(of: job, owner: owner, claimableAfter: claimableAfter)
    }

    func renewLeases(owner: String, until leaseUntil: Date) async throws -> Int {
        counted()
        return try await base.renewLeases(owner: owner, until: leaseUntil)
    }

    func nextDueDate(platform: Platform, after: Date) async throws -> Date? {
        counted()
        return try await base.nextDueDate(platform: platform, after: after)
    }

    func acknowledge(deviceID: String, notificationID: String, now: Date) async throws -> DeliveryAcknowledgement? {
        counted()
        return try await base.acknowledge(deviceID: deviceID, notificationID: notificationID, now: now)
    }

    func devicesWithQueuedJobs(among deviceIDs: [String], now: Date) async throws -> Set<String> {
        counted()
        return try await base.devicesWithQueuedJobs(among: deviceIDs, now: now)
    }

    func queueStatistics(now: Date) async throws -> [Platform: DeliveryQueueStatistics] {
        counted()
        return try await base.queueStatistics(now: now)
    }

    func expireDue(now: Date) async throws -> Int {
        counted()
        return try await base.expireDue(now: now)
    }

    func purge(before cutoff: Date, keysBefore: Date?) async throws -> DeliveryPurge {
        counted()
        return try await base.purge(before: cutoff, keysBefore: keysBefore)
    }
}
