import Foundation
import JSONRPC
import SharedModels
import Synchronization

/// What a Notification Service Extension shows for a secure notification.
public struct ResolvedNotification: Sendable, Hashable {
    /// Where the text came from.
    public enum Kind: Sendable, Hashable {
        /// The notification's payload, fetched (and opened, when sealed) for this device.
        case payload
        /// The generic text: the payload could not be had in time (no session nor key, a revoked device, a store
        /// slower than the budget, a malformed push).
        case generic
        /// A read-once notification someone already read (`-32010`): it is gone.
        case alreadyRead
    }

    /// The alert's title as push-dispatch sent it (the operator's `SECUREPUSH_APNS_ALERT_TITLE`), if any.
    public var title: String?
    /// What to show.
    public var body: String
    public var kind: Kind

    public init(title: String?, body: String, kind: Kind) {
        self.title = title
        self.body = body
        self.kind = kind
    }
}

/// The Notification Service Extension flow as one call: a `mutable-content` alert arrives with a secure
/// notification's id; ``resolve(userInfo:device:timeBudget:texts:)`` fetches (and opens) its payload within the
/// budget, or says what to show instead. It never throws and never refreshes the session.
public enum SecurePushNotification {
    /// The texts shown when the payload cannot be.
    public struct Texts: Sendable, Hashable {
        /// Shown when the payload could not be fetched in time.
        public var generic: String
        /// Shown for a read-once notification that was already read.
        public var alreadyRead: String

        public init(
            generic: String = "You have a new secure message", alreadyRead: String = "This message was already read"
        ) {
            self.generic = generic
            self.alreadyRead = alreadyRead
        }
    }

    /// What the extension should show for the push whose `userInfo` it got.
    ///
    /// - Parameters:
    ///   - userInfo: the push's `userInfo` (`secureId`, `traceparent`, `aps.alert.title`). No `secureId`, one of
    ///     another type or not a UUID gives the generic text.
    ///   - device: the device as the app left it (its session and, for sealed devices, ``SecurePushDevice/useSealedDevice(id:key:)``),
    ///     read from storage it shares with the extension. The session is never refreshed: the access token while
    ///     valid, else the device proof.
    ///   - timeBudget: how long the fetch may take (iOS gives an extension about 30 s); when it runs out the request
    ///     is cancelled and the generic text is returned.
    public static func resolve(
        userInfo: [AnyHashable: Any], device: SecurePushDevice, timeBudget: Duration = .seconds(25),
        texts: Texts = Texts()
    ) async -> ResolvedNotification {
        let push = Push(userInfo)
        let generic = ResolvedNotification(title: push.title, body: texts.generic, kind: .generic)
        guard let id = push.notificationId else { return generic }
        switch await fetch(id, traceparent: push.traceparent, device: device, within: timeBudget) {
        case .success(let notification):
            guard let payload = notification.payload else { return generic }
            return ResolvedNotification(title: push.title, body: payload, kind: .payload)
        case .failure(let error as RPCError) where error.code == RPCErrorCode.gone:
            return ResolvedNotification(title: push.title, body: texts.alreadyRead, kind: .alreadyRead)
        case .failure:
            return generic
        }
    }

    /// What a push's `userInfo` says, read before anything is awaited.
    struct Push: Sendable {
        var notificationId: String?
        var traceparent: String?
        var title: String?

        init(_ userInfo: [AnyHashable: Any]) {
            let id = userInfo[SecurePushDevice.notificationIdField] as? String
            notificationId = id.flatMap { UUID(uuidString: $0) == nil ? nil : $0 }
            traceparent = userInfo["traceparent"] as? String
            let alert = (userInfo["aps"] as? [AnyHashable: Any])?["alert"] as? [AnyHashable: Any]
            title = alert?["title"] as? String
        }
    }

    /// `device`'s fetch of `id`, or a `CancellationError` once `budget` ran out or the calling task was cancelled (the
    /// fetch is then cancelled, and this returns without waiting for it to notice).
    static func fetch(_ id: String, traceparent: String?, device: SecurePushDevice, within budget: Duration) async
        -> Result<Store.StoredNotification, any Error>
    {
        let outcome = FirstOutcome()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                outcome.set(continuation)
                outcome.start(
                    Task {
                        do {
                            outcome.resume(
                                with: .success(try await device.fetchWithoutRefreshing(id, traceparent: traceparent)))
                        } catch {
                            outcome.resume(with: .failure(error))
                        }
                    })
                let timer = Task {
                    try? await Task.sleep(for: budget)
                    outcome.resume(with: .failure(CancellationError()))
                }
                outcome.onResume { timer.cancel() }
            }
        } onCancel: {
            // The caller gave up (iOS's own deadline, `serviceExtensionTimeWillExpire`): answer now.
            outcome.resume(with: .failure(CancellationError()))
        }
    }
}

/// Resumes a continuation once, with the first of the outcomes (the fetch, the budget's end, the caller's
/// cancellation); cancels the fetch when it was not first.
private final class FirstOutcome: Sendable {
    typealias Outcome = Result<Store.StoredNotification, any Error>

    private struct State {
        var continuation: CheckedContinuation<Outcome, Never>?
        /// The outcome, once there is one (kept until the continuation is set, when that comes later).
        var result: Outcome?
        var fetching: Task<Void, Never>?
        var onResume: (@Sendable () -> Void)?
    }

    private let state = Mutex(State())

    func set(_ continuation: CheckedContinuation<Outcome, Never>) {
        let early = state.withLock { state -> Outcome? in
            if let result = state.result { return result }
            state.continuation = continuation
            return nil
        }
        if let early { continuation.resume(returning: early) }
    }

    /// The fetch: cancelled at once when another outcome came first.
    func start(_ fetching: Task<Void, Never>) {
        let late = state.withLock { state -> Bool in
            state.fetching = fetching
            return state.result != nil
        }
        if late { fetching.cancel() }
    }

    /// Runs `action` once there is an outcome (at once if there already is).
    func onResume(_ action: @escaping @Sendable () -> Void) {
        let already = state.withLock { state -> Bool in
            if state.result != nil { return true }
            state.onResume = action
            return false
        }
        if already { action() }
    }

    func resume(with result: Outcome) {
        let taken = state.withLock {
            state -> (CheckedContinuation<Outcome, Never>?, Task<Void, Never>?, (@Sendable () -> Void)?)? in
            guard state.result == nil else { return nil }
            state.result = result
            defer {
                state.continuation = nil
                state.onResume = nil
            }
            return (state.continuation, state.fetching, state.onResume)
        }
        guard let (continuation, fetching, action) = taken else { return }
        continuation?.resume(returning: result)
        if case .failure = result { fetching?.cancel() }
        action?()
    }
}
