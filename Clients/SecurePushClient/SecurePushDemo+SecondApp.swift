import Foundation
import HTTP2Client
import JSONRPC
import Logging
import SharedModels

extension SecurePushDemo {
    /// A second app of the deployment, made by its operator (`securepush apps create`), and a backend client bound to
    /// it (`securepush clients create … --app`).
    public struct SecondApp: Sendable {
        /// The app's id, e.g. `demo-partner`.
        public var appId: String
        /// A backend client with scope `push:send` whose token names only this app.
        public var clientID: String
        public var clientSecret: String
        /// The VAPID public key (base64url of the uncompressed point) of the app's Web Push credentials: the demo
        /// checks that push-dispatch publishes it for the app.
        public var vapidPublicKey: String

        public init(appId: String, clientID: String, clientSecret: String, vapidPublicKey: String) {
            self.appId = appId
            self.clientID = clientID
            self.clientSecret = clientSecret
            self.vapidPublicKey = vapidPublicKey
        }
    }

    /// What the second app's part of the story produced.
    public struct SecondAppOutcome: Sendable, Equatable {
        /// The user's device of the second app.
        public var deviceId: String
        /// The notification sent for the second app; it reached only `deviceId`.
        public var notificationId: String
        /// The notification sent for the default app meanwhile; it reached only the default app's device.
        public var defaultAppNotificationId: String
    }

    /// Steps 8 to 12: the same user gets a device of the second app; a send for each app reaches only that app's
    /// device, and the second app's client cannot send for the default app.
    func secondAppStory(
        _ app: SecondApp, device: SecurePushDevice, backend: SecurePushBackend, userId: String,
        defaultDeviceId: String, step: @escaping @Sendable (String) -> Void
    ) async throws -> SecondAppOutcome {
        let partner = try SecurePushBackend(
            authURL: endpoints.auth, dispatchURL: endpoints.dispatch, clientID: app.clientID,
            clientSecret: app.clientSecret,
            configuration: HTTP2ClientConfiguration(trustRootsPEMFile: endpoints.caFile),
            logger: Logger(label: "securepush.demo"))
        do {
            let outcome = try await secondAppSteps(
                app, device: device, backend: backend, partner: partner, userId: userId,
                defaultDeviceId: defaultDeviceId, step: step)
            await partner.shutdown()
            return outcome
        } catch {
            await partner.shutdown()
            throw error
        }
    }

    private func secondAppSteps(
        _ app: SecondApp, device: SecurePushDevice, backend: SecurePushBackend, partner: SecurePushBackend,
        userId: String, defaultDeviceId: String, step: @escaping @Sendable (String) -> Void
    ) async throws -> SecondAppOutcome {
        // Every replica serves a new or changed app within SECUREPUSH_APPS_REFRESH_INTERVAL: until then, ask again.
        try await untilServed(app.appId) {
            let published = try await device.webPushKey(appId: app.appId)
            guard published == app.vapidPublicKey else { throw Self.notServedYet(app.appId) }
        }
        step("8. devices.webPushKey {appId: '\(app.appId)'}: push-dispatch publishes the app's own VAPID key")

        let appDeviceId = try await untilServed(app.appId) {
            try await device.register(device: .init(platform: .direct, name: "demo device", appId: app.appId))
        }
        step("9. devices.register {appId: '\(app.appId)'}: the same user's second device \(appDeviceId)")

        let appPayload = "Your \(app.appId) code is \(Int.random(in: 100_000...999_999))"
        let appSend = try await untilServed(app.appId) {
            try await partner.send(.init(recipientId: userId, payload: appPayload, ttlSeconds: 600, appId: app.appId))
        }
        let defaultSend = try await backend.send(
            .init(recipientId: userId, payload: "A message of the default app", ttlSeconds: 600))
        step(
            "10. push.send by '\(app.clientID)' for '\(app.appId)' reached \(Self.devices(appSend)); by '\(clientID)' "
                + "for the default app, \(Self.devices(defaultSend))")
        guard appSend.deliveries.map(\.deviceId) == [appDeviceId],
            defaultSend.deliveries.map(\.deviceId) == [defaultDeviceId]
        else {
            throw DemoError(description: "a send reached another app's device: \(appSend) \(defaultSend)")
        }

        let appReceived = try await firstID(of: device.notifications(deviceId: appDeviceId))
        let defaultReceived = try await firstID(of: device.notifications(deviceId: defaultDeviceId))
        guard appReceived == appSend.notificationId, defaultReceived == defaultSend.notificationId else {
            throw DemoError(
                description: "the devices received \(appReceived) and \(defaultReceived), expected "
                    + "\(appSend.notificationId) and \(defaultSend.notificationId)")
        }
        let fetched = try await device.fetch(appReceived)
        guard fetched.payload == appPayload else { throw DemoError(description: "fetched another payload") }
        try await device.acknowledge(deviceId: appDeviceId, notificationId: appReceived)
        try await device.acknowledge(deviceId: defaultDeviceId, notificationId: defaultReceived)
        step("11. each device received only its own app's id; store.get: \"\(appPayload)\"")

        do {
            _ = try await partner.send(.init(recipientId: userId, payload: "not for this client", ttlSeconds: 600))
            throw DemoError(description: "'\(app.clientID)' could send for the default app")
        } catch let error as RPCError where error.code == RPCErrorCode.forbidden {
            step("12. push.send by '\(app.clientID)' for the default app: refused (\(error.code) \(error.message))")
        }
        return SecondAppOutcome(
            deviceId: appDeviceId, notificationId: appSend.notificationId,
            defaultAppNotificationId: defaultSend.notificationId)
    }

    /// Runs `body` again while push-dispatch does not serve app `appId` yet (`-32602` naming `appId`), up to
    /// ``timeout``.
    private func untilServed<T: Sendable>(_ appId: String, _ body: () async throws -> T) async throws -> T {
        let deadline = ContinuousClock.now + timeout
        while true {
            do {
                return try await body()
            } catch let error as RPCError where Self.namesAppId(error) && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(250))
            }
        }
    }

    private static func namesAppId(_ error: RPCError) -> Bool {
        guard error.code == RPCErrorCode.invalidParams, case .object(let data) = error.data else { return false }
        return data["field"] == .string("appId")
    }

    private static func notServedYet(_ appId: String) -> RPCError {
        .invalidParams(field: "appId", "'\(appId)' is not served with its current credentials yet")
    }

    private static func devices(_ result: Push.Send.Result) -> String {
        result.deliveries.map { "\($0.deviceId) \($0.status)" }.joined(separator: ", ")
    }
}
