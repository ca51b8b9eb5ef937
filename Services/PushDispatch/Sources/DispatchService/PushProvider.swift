import SharedModels

/// Delivers notification ids to the devices of one platform (`direct` now; APNs, FCM, WNS and Web Push later).
///
/// `push.send` never talks to a provider directly: it records one `queued` delivery job per device in the same
/// transaction as the send, then calls `jobsQueued(_:)` so delivery starts without polling. Providers that push
/// to a remote service are driven by a worker that claims due jobs from the database and calls `deliver(_:)`,
/// recording each `DeliveryOutcome`; jobs left over by a crash are still in the database for the next start.
public protocol PushProvider: Sendable {
    /// The platform this provider serves; `devices.register` accepts exactly the platforms with a provider.
    var platform: Platform { get }

    /// Checks a device token at registration and returns the form to store (throws `-32602` naming `token`).
    func validateToken(_ token: String?) throws(DispatchError) -> String?

    /// Called after `push.send` committed new jobs for this platform; starts their delivery and returns quickly.
    func jobsQueued(_ jobs: [DeliveryJob]) async

    /// Attempts to deliver one job now. Only the notification id may leave push-dispatch, never the payload.
    func deliver(_ job: DeliveryJob) async -> DeliveryOutcome
}
