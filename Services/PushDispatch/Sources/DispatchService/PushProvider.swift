import SharedModels

/// Delivers notification ids to the devices of one platform: `direct` (built in), APNs, FCM, WNS or Web Push.
///
/// `push.send` never talks to a provider directly: it records one `queued` delivery job per device in the same
/// transaction as the send, then calls `jobsQueued(_:)` and rings the platform's worker, so delivery starts without
/// polling. Providers that push to a remote service are driven by a `DeliveryWorker` that claims due jobs from the
/// database, calls `deliver(_:)` and records each `DeliveryOutcome` (retries, backoff, deactivation, status); jobs
/// left over by a crash are still in the database for the next start.
public protocol PushProvider: Sendable {
    /// The platform this provider serves; `devices.register` accepts exactly the platforms with a provider.
    var platform: Platform { get }

    /// Checks a device token at registration and returns the form to store (throws `-32602` naming `token`).
    func validateToken(_ token: String?) throws(DispatchError) -> String?

    /// Called after `push.send` committed new jobs for this platform; returns quickly. Remote providers do nothing
    /// here (their worker is woken separately); the direct channel wakes the devices' event streams.
    func jobsQueued(_ jobs: [DeliveryJob]) async

    /// Attempts to deliver one job now, once (the worker retries). Never throws: every failure is an outcome. Only the
    /// notification id may leave push-dispatch, never the payload (a job does not carry it).
    func deliver(_ job: DeliveryJob) async -> DeliveryOutcome

    /// Releases what the provider holds (HTTP clients); its delivery worker calls it once, after its last attempt.
    func shutdown() async
}

extension PushProvider {
    /// Nothing to release.
    public func shutdown() async {}
}
