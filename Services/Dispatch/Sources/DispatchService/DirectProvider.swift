import SharedModels

/// SecurePush's own channel: a device holds `GET /devices/{deviceId}/events` open and receives ids over it.
///
/// Delivery is pulled: each open stream writes every pending job of its device in sequence order and records
/// it as `sent` itself (see `DirectEventStream`). So delivering means waking the device's streams; a device
/// that is offline gets its pending jobs when it connects.
public struct DirectProvider: PushProvider {
    public let platform = Platform.direct
    let hub: DirectHub

    /// - Parameter hub: the in-process wake-up hub the device streams wait on.
    public init(hub: DirectHub) {
        self.hub = hub
    }

    /// Direct tokens are optional and opaque (e.g. an installation id that makes re-registration idempotent).
    public func validateToken(_ token: String?) throws(DispatchError) -> String? {
        token
    }

    /// Wakes the open event streams of the jobs' devices, which write and record the jobs; a device that is offline
    /// gets them when it connects.
    public func jobsQueued(_ jobs: [DeliveryJob]) async {
        await hub.wake(deviceIDs: jobs.map(\.deviceID))
    }
}
