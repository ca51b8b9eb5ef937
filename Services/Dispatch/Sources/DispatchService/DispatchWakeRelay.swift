import Logging
import PostgresNIO
import ServiceCore
import ServiceLifecycle
import SharedModels

/// Carries wake-ups between push-dispatch replicas on PostgreSQL: listens on ``DispatchMigrations/wakeChannel``
/// and wakes this replica's event streams of a device (`d:<device id>`) or the delivery worker of a platform
/// (`p:<platform>`), which `SQLDeliveryRepository.recordSend` announces when its transaction commits.
///
/// Wake-ups are hints: the direct channel's periodic sweep (`DirectSweep`) wakes streams whose device has queued jobs,
/// and workers look at least every idle interval, so one lost while the listening connection reconnects costs a
/// delay, never a delivery. A device unregistered or moved to another user is announced the same way (`d:<id>`), so
/// its streams on every replica re-check their owner and end. An app created, changed or deleted (`a:<app id>`, by
/// `apps.*` or `securepush apps`) makes every replica read the apps again at once, rather than at its next poll. A user
/// erased (`u:<digest of the user id>`) is forgotten as a recipient on every replica.
public struct DispatchWakeRelay: Service {
    let database: PostgresServiceDatabase
    let hub: DirectHub
    let doorbells: [Platform: WakeUpSignal]
    let appsChanged: @Sendable () async -> Void
    /// A user erased on another replica (`u:` + the digest of their id).
    let userErased: @Sendable (String) async -> Void
    let logger: Logger

    public init(
        database: PostgresServiceDatabase, hub: DirectHub, doorbells: [Platform: WakeUpSignal],
        appsChanged: @escaping @Sendable () async -> Void = {},
        userErased: @escaping @Sendable (String) async -> Void = { _ in }, logger: Logger
    ) {
        self.database = database
        self.hub = hub
        self.doorbells = doorbells
        self.appsChanged = appsChanged
        self.userErased = userErased
        self.logger = logger
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown { await listenUntilCancelled() }
    }

    private func listenUntilCancelled() async {
        var delay = Duration.milliseconds(100)
        while !Task.isCancelled {
            do {
                try await listenOnce()
                delay = .milliseconds(100)
            } catch {
                if Task.isCancelled { return }
                logger.warning("dispatch.wake.listen.failed", metadata: ["error": "\(error)"])
            }
            try? await Task.sleep(for: delay)
            delay = min(delay * 2, .seconds(5))
        }
    }

    /// Listens on one pooled connection until it fails or the task is cancelled.
    private func listenOnce() async throws {
        try await database.withClient { client in
            try await client.withConnection { connection in
                try await connection.listen(on: DispatchMigrations.wakeChannel) { notifications in
                    // Wake every worker once: anything sent while nobody listened is picked up now.
                    for doorbell in doorbells.values { doorbell.wake() }
                    await appsChanged()
                    for try await notification in notifications { await handle(notification.payload) }
                }
            }
        }
    }

    func handle(_ payload: String) async {
        if payload.hasPrefix("d:") {
            await hub.wake(deviceIDs: [String(payload.dropFirst(2))])
        } else if payload.hasPrefix("p:") {
            doorbells[Platform(rawValue: String(payload.dropFirst(2)))]?.wake()
        } else if payload.hasPrefix("a:") {
            await appsChanged()
        } else if payload.hasPrefix("u:") {
            await userErased(String(payload.dropFirst(2)))
        }
    }
}
