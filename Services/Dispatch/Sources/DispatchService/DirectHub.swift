import Foundation

/// The in-process wake-up hub of the direct channel: which event streams are open for which device.
///
/// `push.send` wakes the streams of the devices it queued jobs for; each stream then reads its pending jobs from
/// the database, so the database stays the only source of truth and a missed wake-up costs at most a delay (the
/// service's periodic sweep, `DirectSweep`, wakes streams whose device has jobs nobody woke them for).
public actor DirectHub {
    /// Most event streams one device may hold open; opening another closes its oldest.
    public let maxStreamsPerDevice: Int
    /// Each device's open streams, oldest first.
    private var streams: [String: [DirectLiveStream]] = [:]
    private var isClosed = false

    /// - Parameter maxStreamsPerDevice: see ``maxStreamsPerDevice`` (at least 1).
    public init(maxStreamsPerDevice: Int = DispatchConfiguration.defaultMaxStreamsPerDevice) {
        self.maxStreamsPerDevice = max(1, maxStreamsPerDevice)
    }

    /// Registers `stream`, closing its device's oldest streams beyond the cap (a device that reconnects usually left
    /// a dead stream behind); `false` once the hub is closed (shutting down).
    func subscribe(_ stream: DirectLiveStream) -> Bool {
        guard !isClosed else { return false }
        var open = streams[stream.deviceID, default: []]
        while open.count >= maxStreamsPerDevice { open.removeFirst().closeFromHub() }
        open.append(stream)
        streams[stream.deviceID] = open
        return true
    }

    /// Forgets a stream (its client went away or it ended by itself).
    func unsubscribe(_ stream: DirectLiveStream) {
        streams[stream.deviceID]?.removeAll { $0 === stream }
        if streams[stream.deviceID]?.isEmpty == true { streams[stream.deviceID] = nil }
    }

    /// Wakes every open stream of these devices; returns how many streams were woken.
    @discardableResult
    public func wake(deviceIDs: some Sequence<String>) -> Int {
        var woken: [DirectLiveStream] = []
        for deviceID in Set(deviceIDs) {
            woken += streams[deviceID, default: []]
        }
        guard !woken.isEmpty else { return 0 }
        // One task drains them all, a batch of streams per database round (``DirectBatchDrain``).
        Task { [woken] in await DirectBatchDrain.run(woken) }
        return woken.count
    }

    /// Ends the device's open streams, except those of `keptOwnerID` (the device's new owner); returns how many.
    @discardableResult
    func close(deviceID: String, except keptOwnerID: String? = nil) -> Int {
        let (kept, closed) = streams[deviceID, default: []].partitioned { $0.ownerID == keptOwnerID }
        for stream in closed { stream.closeFromHub() }
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
                stream.closeFromHub()
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
            for stream in open { stream.closeFromHub() }
        }
        streams = [:]
    }

    /// The keepalive tick, one for every stream of the service: each open stream writes its keepalive comment from
    /// memory (a slow reader that has not taken the previous one is skipped) or ends once its token has expired.
    /// No task per stream: writes are queued on the streams' connections; returns how many streams were ticked.
    @discardableResult
    public func keepalive() -> Int {
        var ticked = 0
        for open in streams.values {
            for stream in open {
                stream.keepalive()
                ticked += 1
            }
        }
        return ticked
    }

    /// How many event streams are open for `deviceID`.
    public func streamCount(deviceID: String) -> Int {
        streams[deviceID]?.count ?? 0
    }

    /// How many of `deviceID`'s open streams are reading or writing its pending jobs now (for tests: a stream's
    /// opening drain runs after it is registered).
    func drainingCount(deviceID: String) -> Int {
        streams[deviceID]?.filter(\.isDraining).count ?? 0
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
