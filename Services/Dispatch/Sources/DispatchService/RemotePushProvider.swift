/// A provider that pushes notification ids through a remote service (APNs, FCM, WNS, Web Push), driven by a
/// ``DeliveryWorker``: the worker claims due jobs from the database, calls ``deliver(_:)`` and records each
/// ``DeliveryOutcome`` (retries, backoff, deactivation, status); jobs left over by a crash are still in the database
/// for the next start.
public protocol RemotePushProvider: PushProvider {
    /// Attempts to deliver one job now, once (the worker retries), telling `responses` each answer the provider's
    /// service gave (or that none came). Never throws: every failure is an outcome. Only the notification id may leave
    /// push-dispatch, never the payload (a job does not carry it).
    func deliver(_ job: DeliveryJob, responses: ProviderResponses) async -> DeliveryOutcome

    /// Releases what the provider holds (HTTP clients); its delivery worker calls it once, after its last attempt.
    func shutdown() async
}

extension RemotePushProvider {
    /// Attempts to deliver one job now, once, counting no responses.
    public func deliver(_ job: DeliveryJob) async -> DeliveryOutcome {
        await deliver(job, responses: .ignored(platform))
    }

    /// Nothing to release.
    public func shutdown() async {}
}
