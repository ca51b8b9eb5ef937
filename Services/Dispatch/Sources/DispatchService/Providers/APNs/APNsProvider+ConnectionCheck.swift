import HTTP2Client
import Logging

extension APNsProvider {
    /// Pings the connection to APNs, if one is open. A PING that is not acknowledged in time makes the HTTP/2
    /// client retire the connection, so the next delivery opens a new one instead of waiting on a dead one.
    ///
    /// - Returns: whether the connection answered (`true` also when none is open: nothing is wrong).
    @discardableResult
    public func checkConnection() async -> Bool {
        do {
            if let roundTrip = try await client.ping(timeout: configuration.pingTimeout) {
                logger.trace("apns.ping", metadata: ["apns.round_trip": "\(roundTrip)"])
            }
            return true
        } catch is CancellationError {
            return true
        } catch {
            logger.debug("apns.ping.failed", metadata: ["error": "\(error)"])
            return false
        }
    }

    /// Checks the connection every `interval` until ``shutdown()``; holds the provider only while checking.
    func startConnectionMonitor(every interval: Duration) {
        let task = Task { [weak self] in
            while !Task.isCancelled {
                do {
                    try await Task.sleep(for: interval)
                } catch {
                    return
                }
                guard let self else { return }
                await self.checkConnection()
            }
        }
        monitor.withLock { $0 = task }
    }
}
