import Foundation
import JSONRPC
import Logging
import SealedPush
import SharedModels

/// The device SDK: sign in with auth, register for pushes with push-dispatch, receive notification ids on the
/// direct channel, and fetch payloads from notification-store — refreshing the access token as needed. All of it over
/// a ``SecurePushTransport`` (`SecurePushClient` adds the HTTP/2 one and `init(endpoints:…)`).
///
/// ```swift
/// let device = try SecurePushDevice(endpoints: .local, logger: logger)
/// try await device.signIn(username: "ada", password: "correct horse")
/// let deviceId = try await device.register(device: .init(platform: .direct, name: "laptop"))
/// for try await id in device.notifications(deviceId: deviceId) {
///     let notification = try await device.fetch(id)
///     try await device.acknowledge(deviceId: deviceId, notificationId: id)
/// }
/// ```
public actor SecurePushDevice {
    private let transport: any SecurePushTransport
    private let logger: Logger
    private let auth: RPCClient
    private let store: RPCClient
    let dispatch: RPCClient
    private var refreshTask: Task<DeviceSession, any Error>?
    private var onSessionChange: (@Sendable (DeviceSession?) -> Void)?
    private let now: @Sendable () -> Date
    /// This device's id and key once it registered sealed: fetches ask for its sealed copy and open it.
    private var sealedDevice: (id: String, key: DeviceKey)?
    /// The device id of this client's last registration that is waiting for its challenge (`verification: "pending"`).
    var pendingDeviceId: String?
    /// The trace context each pushed id came with (echoed on `fetch`).
    private let traceContexts = TraceContexts()

    /// The current session; `nil` until signed in.
    public private(set) var session: DeviceSession?

    /// - Parameters:
    ///   - transport: how the services are reached.
    ///   - session: a session kept from an earlier run, if any.
    ///   - now: the clock the access token's expiry is judged by.
    public init(
        transport: any SecurePushTransport, session: DeviceSession? = nil, logger: Logger,
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.transport = transport
        self.session = session
        self.logger = logger
        self.now = now
        auth = RPCClient(transport: transport.rpc(.auth, extraHeaders: []), peerName: SecurePushService.auth.rawValue)
        store = RPCClient(
            transport: transport.rpc(.store, extraHeaders: []), peerName: SecurePushService.store.rawValue)
        dispatch = RPCClient(
            transport: transport.rpc(.dispatch, extraHeaders: []), peerName: SecurePushService.dispatch.rawValue)
    }

    /// Called whenever the session changes (sign-in, refresh, sign-out), so the app can persist the rotated refresh token.
    public func onSessionChange(_ handler: @escaping @Sendable (DeviceSession?) -> Void) {
        onSessionChange = handler
    }

    // MARK: - Account

    /// Creates an account; returns the new user id.
    public func createAccount(username: String, password: String) async throws -> String {
        try await auth.call(Auth.Register.self, .init(username: username, password: password)).userId
    }

    /// Signs in and keeps the session.
    @discardableResult
    public func signIn(username: String, password: String) async throws -> DeviceSession {
        let grant = try await auth.call(Auth.Login.self, .init(username: username, password: password))
        return adopt(grant)
    }

    /// Signs out: the refresh token's family is revoked and the session forgotten.
    public func signOut() async throws {
        guard let session else { return }
        _ = try await auth.call(Auth.Logout.self, .init(refreshToken: session.refreshToken))
        self.session = nil
        onSessionChange?(nil)
    }

    /// Erases the signed-in user's account and everything about them in every service (`users.delete`), then
    /// forgets the session. Needs a recent password sign-in (``signIn(username:password:)`` within
    /// `SECUREPUSH_ERASURE_SIGNIN_MAX_AGE`, 5 minutes by default), else `-32003` with `data {reason:
    /// "signInRequired"}`: sign in again and repeat.
    @discardableResult
    public func deleteAccount() async throws -> Users.Delete.Result {
        let result = try await authorized { token in
            try await self.auth.call(Users.Delete.self, .init(), token: token)
        }
        session = nil
        sealedDevice = nil
        onSessionChange?(nil)
        return result
    }

    // MARK: - Devices and notifications

    /// Registers this device for pushes; returns its device id. When the token belongs to another user's device the
    /// id is a pending device's (see ``registration(device:)``): ``receive(push:)`` answers the challenge pushed to it.
    public func register(device: Devices.Register.Params) async throws -> String {
        try await registration(device: device).deviceId
    }

    /// Registers this device for pushes and returns push-dispatch's whole answer. `verification == "pending"` when the
    /// APNs, FCM or WNS token is another user's device (the previous user of this phone, say): the device moves to
    /// this user once ``receive(push:)`` (or ``verify(deviceId:challenge:)``) answers the challenge pushed to it.
    public func registration(device: Devices.Register.Params) async throws -> Devices.Register.Result {
        let result = try await authorized { token in
            try await self.dispatch.call(Devices.Register.self, device, token: token)
        }
        pendingDeviceId = result.verification == nil ? nil : result.deviceId
        return result
    }

    /// The VAPID public key app `appId` (else the deployment's default app) publishes for Web Push subscriptions
    /// (`devices.webPushKey`; no sign-in needed). `-32004` when that app has no Web Push credentials.
    public func webPushKey(appId: String? = nil) async throws -> String {
        try await dispatch.call(Devices.WebPushKey.self, .init(appId: appId)).vapidPublicKey
    }

    /// The signed-in user's devices.
    public func devices() async throws -> [Devices.DeviceInfo] {
        try await authorized { token in try await self.dispatch.call(Devices.List.self, Empty(), token: token) }.devices
    }

    /// Removes one of the signed-in user's devices (a lost laptop, from the phone): its pushes stop, and the store
    /// deletes what was sealed to its key and refuses its proofs (`-32001 Unauthenticated: device revoked`).
    public func unregister(deviceId: String) async throws {
        _ = try await authorized { token in
            try await self.dispatch.call(Devices.Unregister.self, .init(deviceId: deviceId), token: token)
        }
        if sealedDevice?.id == deviceId { sealedDevice = nil }
    }

    /// Registers this device sealed: its public key goes to push-dispatch, payloads sent to it are sealed to the key,
    /// and ``fetch(_:)`` asks for its sealed copy and opens it. Returns the device id.
    public func register(device: Devices.Register.Params, key: DeviceKey) async throws -> String {
        var params = device
        params.publicKey = key.publicKey
        let deviceId = try await register(device: params)
        sealedDevice = (deviceId, key)
        return deviceId
    }

    /// Uses a sealed device registered earlier (its id and key kept by the app).
    public func useSealedDevice(id: String, key: DeviceKey) {
        sealedDevice = (id, key)
    }

    /// Fetches a notification from notification-store (only its recipient can) and returns it with its payload in
    /// `payload`, opened on this device when it was sealed to it.
    ///
    /// A sealed device fetches with the access token while it is valid, and otherwise with a device proof alone: no
    /// refresh (a Notification Service Extension must not spend the app's single-use refresh token), no session at all
    /// needed. A read-once notification sealed to the device is fetched with a proof even with a valid token (the
    /// store answers the token alone with `-32602` naming `SecurePush-Device-Proof`, and consumes nothing).
    ///
    /// The request carries the W3C `traceparent` the notification came with, so the fetch joins the send's trace:
    /// `traceparent` when given (the `traceparent` field of an APNs or FCM payload), else the one its direct-channel
    /// event carried. A malformed value is not sent.
    public func fetch(_ notificationId: String, traceparent: String? = nil) async throws -> Store.StoredNotification {
        try await fetch(notificationId, traceparent: traceparent, refreshing: true)
    }

    /// ``fetch(_:traceparent:)`` as a Notification Service Extension may: never refreshing the session (refresh
    /// tokens are single use and shared with the app: a refresh from the extension would race the app's and revoke
    /// the family). The access token while it is valid, else the device proof of a sealed device
    /// (``useSealedDevice(id:key:)``); an unsealed device without a valid token throws
    /// ``SecurePushClientError/notSignedIn``.
    public func fetchWithoutRefreshing(_ notificationId: String, traceparent: String? = nil) async throws
        -> Store.StoredNotification
    {
        try await fetch(notificationId, traceparent: traceparent, refreshing: false)
    }

    private func fetch(_ notificationId: String, traceparent: String?, refreshing: Bool) async throws
        -> Store.StoredNotification
    {
        let trace = (traceparent.flatMap(TraceParent.init) ?? traceContexts.traceParent(for: notificationId))?
            .description
        guard let sealedDevice else {
            let get = { @Sendable (token: String) in
                try await self.store.call(
                    Store.Get.self, .init(notificationId: notificationId), token: token, traceparent: trace)
            }
            if refreshing { return try await authorized(get) }
            guard let session, session.accessTokenExpiresAt > now() else { throw SecurePushClientError.notSignedIn }
            return try await get(session.accessToken)
        }
        let params = Store.Get.Params(notificationId: notificationId, deviceId: sealedDevice.id)
        var notification: Store.StoredNotification
        if let session, session.accessTokenExpiresAt.timeIntervalSince(now()) > 30 {
            do {
                notification = try await store.call(
                    Store.Get.self, params, token: session.accessToken, traceparent: trace)
            } catch let refused as RPCError where Self.needsProof(refused) {
                // A read-once notification sealed to this device: only the device's proof may consume it.
                notification = try await fetchWithProof(params, device: sealedDevice, traceparent: trace)
            } catch let refused as RPCError where refused.code == RPCErrorCode.unauthenticated {
                // The token was refused (revoked, or the server forgot it): the key may still fetch. If it cannot
                // either, the session is what needs fixing, so that is the error the caller sees.
                do {
                    notification = try await fetchWithProof(params, device: sealedDevice, traceparent: trace)
                } catch let error as RPCError where error.code != RPCErrorCode.gone {
                    throw refused
                }
            }
        } else {
            notification = try await fetchWithProof(params, device: sealedDevice, traceparent: trace)
        }
        if let sealed = notification.sealed {
            notification.payload = try sealedDevice.key.open(sealed, notificationId: notificationId)
            notification.sealed = nil
        }
        guard notification.payload != nil else { throw SecurePushClientError.noPayload }
        return notification
    }

    /// Whether the store asked for a device proof (`-32602` naming `SecurePush-Device-Proof`): the token alone may not
    /// consume a read-once notification sealed to the user's devices.
    static func needsProof(_ error: RPCError) -> Bool {
        guard error.code == RPCErrorCode.invalidParams, case .object(let data)? = error.data,
            case .string(let field)? = data["field"]
        else { return false }
        return field.caseInsensitiveCompare(DeviceProof.headerName) == .orderedSame
    }

    /// `store.get` with a `SecurePush-Device-Proof` made now with the device's key, and no token.
    private func fetchWithProof(
        _ params: Store.Get.Params, device: (id: String, key: DeviceKey), traceparent: String?
    ) async throws -> Store.StoredNotification {
        let proof = try device.key.proof(notificationId: params.notificationId, deviceId: device.id, now: now())
        let proving = RPCClient(
            transport: transport.rpc(.store, extraHeaders: [(DeviceProof.headerName.lowercased(), proof)]),
            peerName: SecurePushService.store.rawValue)
        return try await proving.call(Store.Get.self, params, traceparent: traceparent)
    }

    /// One page of the user's notifications, newest first (`store.list`): scheduled sends appear once they are due.
    public func list(_ params: Store.List.Params = .init()) async throws -> Store.List.Result {
        try await authorized { token in try await self.store.call(Store.List.self, params, token: token) }
    }

    /// Marks a notification read.
    public func markRead(_ notificationId: String) async throws -> Date {
        try await authorized { token in
            try await self.store.call(Store.MarkRead.self, .init(notificationId: notificationId), token: token)
        }.readAt
    }

    /// Tells push-dispatch the device has the id, so it is not sent on the stream again.
    public func acknowledge(deviceId: String, notificationId: String) async throws {
        _ = try await authorized { token in
            try await self.dispatch.call(
                Devices.Ack.self, .init(deviceId: deviceId, notificationId: notificationId), token: token)
        }
    }

    /// The notification ids pushed to `deviceId` on the direct channel, as they arrive.
    ///
    /// The stream reconnects by itself (with backoff) when the connection drops or push-dispatch restarts; ids not yet
    /// acknowledged are delivered again after a reconnect, so call `acknowledge` once an id is handled. Ids already
    /// yielded by this sequence are not yielded twice. It ends with an error when the stream is refused (403/404) or
    /// the session cannot be refreshed, and ends when the consuming task is cancelled.
    /// - Parameter onStateChange: told each time the stream connects, connects again or drops (with the retry delay).
    public nonisolated func notifications(
        deviceId: String, onStateChange: (@Sendable (EventStreamState) -> Void)? = nil
    ) -> AsyncThrowingStream<String, any Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    try await self.runEventStream(deviceId: deviceId, report: onStateChange ?? { _ in }) { id in
                        continuation.yield(id)
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Closes the connections.
    public func shutdown() async {
        await transport.shutdown()
    }

    // MARK: - Event stream

    private func runEventStream(
        deviceId: String, report: @escaping @Sendable (EventStreamState) -> Void,
        yield: @escaping @Sendable (String) -> Void
    ) async throws {
        var seen = Set<String>()
        let traces = traceContexts
        var backoff = Duration.milliseconds(200)
        while !Task.isCancelled {
            report(.connecting)
            var failure: (any Error)?
            // What this connection yielded is kept whichever way it ends (also when it breaks: the server sends the
            // unacknowledged ids again on the next one, and they must not be yielded twice).
            let reader = EventStreamReader(seen: seen, traces: traces, yield: yield)
            defer { seen = reader.seen }
            do {
                let token = try await validAccessToken()
                let status = try await transport.eventStream(
                    path: "/devices/\(deviceId)/events",
                    headers: [("authorization", "Bearer \(token)"), ("accept", "text/event-stream")],
                    opened: {
                        reader.opened()
                        report(.connected)
                    },
                    received: { try reader.feed($0) })
                switch status {
                case 200:
                    break  // the server ended a healthy stream (e.g. restart): reconnect soon
                case 401:
                    _ = try await refreshSession()
                    continue
                default:
                    throw SecurePushClientError.streamRefused(status: status)
                }
            } catch let error as SecurePushClientError {
                throw error
            } catch let error as RPCError where error.code == RPCErrorCode.unauthenticated {
                throw error  // the session cannot be refreshed: sign in again
            } catch {
                if Task.isCancelled { return }
                logger.debug("securepush.stream.reconnecting", metadata: ["error": "\(error)"])
                failure = error
            }
            // A stream that was up starts over with a short delay; only failures in a row back off further.
            if reader.wasOpened { backoff = .milliseconds(200) }
            report(.disconnected(reason: failure, retryIn: backoff))
            try? await Task.sleep(for: backoff)
            backoff = min(backoff * 2, .seconds(10))
        }
    }

    /// The params of a `push.notify` event (its id and trace context), if it is one.
    static func notify(in event: ServerSentEventParser.Event) -> Push.Notify.Params? {
        guard let data = event.data.data(using: .utf8),
            let message = try? RPCCodec.makeDecoder().decode(NotifyMessage.self, from: data),
            message.jsonrpc == "2.0", message.method == Push.Notify.name
        else { return nil }
        return message.params
    }

    private struct NotifyMessage: Decodable {
        var jsonrpc: String
        var method: String
        var params: Push.Notify.Params
    }

    // MARK: - Tokens

    /// Runs `call` with a valid access token; on `-32001` refreshes once and retries.
    func authorized<T: Sendable>(_ call: @Sendable (String) async throws -> T) async throws -> T {
        let token = try await validAccessToken()
        do {
            return try await call(token)
        } catch let error as RPCError where error.code == RPCErrorCode.unauthenticated {
            let refreshed = try await refreshSession(ifStill: token)
            return try await call(refreshed.accessToken)
        }
    }

    /// The access token, refreshed first when it expires within 30 seconds.
    private func validAccessToken() async throws -> String {
        guard let session else { throw SecurePushClientError.notSignedIn }
        if session.accessTokenExpiresAt.timeIntervalSince(now()) > 30 { return session.accessToken }
        return try await refreshSession(ifStill: session.accessToken).accessToken
    }

    /// Refreshes the session once, however many callers ask at the same time: refresh tokens are single use, and a
    /// second use of a spent one revokes the whole family.
    private func refreshSession(ifStill staleToken: String? = nil) async throws -> DeviceSession {
        if let refreshTask { return try await refreshTask.value }
        guard let current = session else { throw SecurePushClientError.notSignedIn }
        if let staleToken, current.accessToken != staleToken { return current }  // someone refreshed meanwhile
        let task = Task { [auth, now] in
            let grant = try await auth.call(Auth.Refresh.self, .init(refreshToken: current.refreshToken))
            return DeviceSession(
                userId: grant.userId,
                accessToken: grant.accessToken,
                refreshToken: grant.refreshToken,
                accessTokenExpiresAt: now().addingTimeInterval(TimeInterval(grant.expiresIn))
            )
        }
        refreshTask = task
        defer { refreshTask = nil }
        let refreshed = try await task.value
        session = refreshed
        onSessionChange?(refreshed)
        return refreshed
    }

    private func adopt(_ grant: Auth.TokenGrant) -> DeviceSession {
        let session = DeviceSession(
            userId: grant.userId,
            accessToken: grant.accessToken,
            refreshToken: grant.refreshToken,
            accessTokenExpiresAt: now().addingTimeInterval(TimeInterval(grant.expiresIn))
        )
        self.session = session
        onSessionChange?(session)
        return session
    }
}
