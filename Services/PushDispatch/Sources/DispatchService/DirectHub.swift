import Foundation

/// The in-process wake-up hub of the direct channel: which event streams are open for which device.
///
/// `push.send` wakes the streams of the devices it queued jobs for; each stream then reads its pending jobs from
/// the database, so the database stays the only source of truth and a missed wake-up costs at most a delay.
public actor DirectHub {
    /// One open event stream.
    struct Subscription: Sendable {
        let id: UUID
        let deviceID: String
        let signal: WakeSignal
    }

    private var streams: [String: [UUID: WakeSignal]] = [:]
    private var isClosed = false

    public init() {}

    /// Registers a stream for `deviceID`; `nil` once the hub is closed (shutting down).
    func subscribe(deviceID: String) -> Subscription? {
        guard !isClosed else { return nil }
        let subscription = Subscription(id: UUID(), deviceID: deviceID, signal: WakeSignal())
        streams[deviceID, default: [:]][subscription.id] = subscription.signal
        return subscription
    }

    /// Removes a stream (its client went away or it ended).
    func unsubscribe(_ subscription: Subscription) {
        streams[subscription.deviceID]?[subscription.id] = nil
        if streams[subscription.deviceID]?.isEmpty == true { streams[subscription.deviceID] = nil }
    }

    /// Wakes every open stream of these devices; returns how many streams were woken.
    @discardableResult
    public func wake(deviceIDs: some Sequence<String>) -> Int {
        var woken = 0
        for deviceID in Set(deviceIDs) {
            for signal in streams[deviceID, default: [:]].values {
                signal.wake()
                woken += 1
            }
        }
        return woken
    }

    /// Ends every open stream and refuses new ones (graceful shutdown).
    public func closeAll() {
        isClosed = true
        for signals in streams.values {
            for signal in signals.values { signal.close() }
        }
    }

    /// How many event streams are open for `deviceID`.
    public func streamCount(deviceID: String) -> Int {
        streams[deviceID]?.count ?? 0
    }
}
