import SharedModels

/// Serves one platform's devices: `direct` (built in, ``DirectProvider``) or a remote push service
/// (``RemotePushProvider``: APNs, FCM, WNS, Web Push). `devices.register` accepts exactly the platforms with a
/// provider and asks it to check the device token.
///
/// `push.send` never talks to a provider directly: it records one `queued` delivery job per device in the same
/// transaction as the send, then hands the jobs to ``PushProviderRegistry/jobsQueued(_:)``, which wakes the direct
/// channel's event streams or rings the remote platform's delivery worker, so delivery starts without polling.
public protocol PushProvider: Sendable {
    /// The platform this provider serves.
    var platform: Platform { get }

    /// Checks a device token at registration and returns the form to store (throws `-32602` naming `token`).
    func validateToken(_ token: String?) throws(DispatchError) -> String?
}
