import Foundation

/// The in-process wake-up hub of the direct channel: which event streams are open for which device.
///
/// `push.send` wakes the streams of the devices it queued jobs for; each stream then reads its pending jobs from
/// the database, so the database stays the only source of truth and a missed wake-up costs at most a delay (the
/// service's periodic sweep, `DirectSweep`, wakes streams whose device has jobs nobody woke them for).
public actor DirectHub {
    /// One open event stream.
    struct Subscription: Sendable {
        let id: UUID
        let deviceID: String
        let signal: WakeUpSignal
    }

    private struct OpenStream {
        let id: UUID
        let ownerID: String
        let sessionID: String?
        let signal: WakeUpSignal
    }

    /// Most event streams one device may hold open; opening another closes its oldest.
    public let maxStreamsPerDevice: Int
    /// Each device's open streams, oldest first.
    private var streams: [String: [OpenStream]] = [:]
    private var isClosed = false

    /// - Parameter maxStreamsPerDevice: see ``maxStreamsPerDevice`` (at least 1).
    public init(maxStreamsPerDevice: Int = DispatchConfiguration.defaultMaxStreamsPerDevice) {
        self.maxStreamsPerDevice = max(1, maxStreamsPerDevice)
    }

    /// Registers a stream of `ownerID` for `deviceID`, closing the device's oldest streams beyond the cap (a device
    /// that reconnects usually left a dead stream behind); `nil` once the hub is closed (shutting down).
    func subscribe(deviceID: String, ownerID: String, sessionID: String? = nil) -> Subscription? {
        guard !isClosed else { return nil }
        var open = streams[deviceID, default: []]
        while open.count >= maxStreamsPerDevice { open.removeFirst().signal.close() }
        let stream = OpenStream(id: UUID(), ownerID: ownerID, sessionID: sessionID, signal: WakeUpSignal())
        open.append(stream)
        streams[deviceID] = open
        return Subscription(id: stream.id, deviceID: deviceID, signal: stream.signal)
    }

    /// Removes a stream (its client went away or it ended).
    func unsubscribe(_ subscription: Subscription) {
        streams[subscription.deviceID]?.removeAll { $0.id == subscription.id }
        if streams[subscription.deviceID]?.isEmpty == true { streams[subscription.deviceID] = nil }
    }

    /// Wakes every open stream of these devices; returns how many streams were woken.
    @discardableResult
    public func wake(deviceIDs: some Sequence<String>) -> Int {
        var woken = 0
        for deviceID in Set(deviceIDs) {
            for stream in streams[deviceID, default: []] {
                stream.signal.wake()
                woken += 1
            }
        }
        return woken
    }

    /// Ends the device's open streams, except those of `keptOwnerID` (the device's new owner); returns how many.
    @discardableResult
    func close(deviceID: String, except keptOwnerID: String? = nil) -> Int {
        let (kept, closed) = streams[deviceID, default: []].partitioned { $0.ownerID == keptOwnerID }
        for stream in closed { stream.signal.close() }
        streams[deviceID] = kept.isEmpty ? nil : kept
        return closed.count
    }

    /// Ends every stream opened in one of `sessionIDs` (sessions signed out); returns how many per session.
    func close(sessionIDs: Set<String>) -> [String: Int] {
        guard !sessionIDs.isEmpty else { return [:] }
        var closed: [String: Int] = [:]
        for (deviceID, open) in streams {
            let (revoked, kept) = open.partitioned { $0.sessionID.map(sessionIDs.contains) ?? false }
            guard !revoked.isEmpty else { continue }
            for stream in revoked {
                stream.signal.close()
                closed[stream.sessionID ?? "", default: 0] += 1
            }
            streams[deviceID] = kept.isEmpty ? nil : kept
        }
        return closed
    }

    /// Whether any open stream carries a session id (otherwise there is nothing to ask auth about).
    var hasSessionStreams: Bool {
        streams.values.contains { $0.contains { $0.sessionID != nil } }
    }

    /// The devices with at least one open stream.
    var connectedDeviceIDs: [String] { Array(streams.keys) }

    /// Ends every open stream and refuses new ones (graceful shutdown).
    public func closeAll() {
        isClosed = true
        for open in streams.values {
            for stream in open { stream.signal.close() }
        }
    }

    /// How many event streams are open for `deviceID`.
    public func streamCount(deviceID: String) -> Int {
        streams[deviceID]?.count ?? 0
    }
}

extension Array {
    /// The elements that satisfy `belongs`, and those that do not, each in order.
    fileprivate func partitioned(by belongs: (Element) -> Bool) -> (matching: [Element], rest: [Element]) {
        var matching: [Element] = []
        var rest: [Element] = []
        for element in self {
            if belongs(element) { matching.append(element) } else { rest.append(element) }
        }
        return (matching, rest)
    }
}
