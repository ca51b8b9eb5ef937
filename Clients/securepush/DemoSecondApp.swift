import AuthService
import Crypto
import DispatchService
import Foundation
import Logging
import SecurePushClient
import ServiceCore
import SharedModels

/// The operator's part of `securepush demo --second-app`: what `securepush apps create` and
/// `securepush clients create … --app` do, on push-dispatch's and auth's databases directly.
///
/// Made afresh on every run: the app's Web Push (VAPID) key is new each time (a rotation when the app exists, which
/// running replicas pick up without a restart), and so is its client's secret.
struct DemoSecondApp {
    /// The app's id.
    var appId: String
    /// Push-dispatch's settings (its database and `SECUREPUSH_APPS_KEY_FILE`).
    var dispatchEnvironment: ServiceEnvironment
    /// Auth's settings (its database).
    var authEnvironment: ServiceEnvironment

    /// The backend client bound to the app.
    var clientID: String { "\(appId)-backend" }

    /// Creates the app (or gives it a new VAPID key) and its client (or a new secret for it); reports each through
    /// `step`.
    func prepare(logger: Logger, step: @escaping @Sendable (String) -> Void) async throws -> SecurePushDemo.SecondApp {
        let vapid = P256.Signing.PrivateKey()
        let credentials = AppCredentials(
            webPush: .init(
                vapidPrivateKey: vapid.pemRepresentation, subject: "mailto:demo@securepush.invalid",
                allowedHosts: ["push.example.invalid"]))
        let keyFileCreated: @Sendable (String) -> Void = { step("   (created the apps key file \($0))") }
        let created = try await AppAdministration.with(
            environment: dispatchEnvironment, logger: logger, keyFileCreated: keyFileCreated
        ) { apps in
            if try await apps.list().contains(where: { $0.id == appId }) {
                try await apps.update(id: appId, credentials: credentials)
                return false
            }
            try await apps.create(id: appId, displayName: "Demo partner app", credentials: credentials)
            return true
        }
        step(
            created
                ? "0. apps create: app '\(appId)' with its own Web Push (VAPID) key, sealed under SECUREPUSH_APPS_KEY_FILE"
                : "0. apps rotate-credentials: app '\(appId)' has a new Web Push (VAPID) key; no restart needed")

        let secret = OpaqueToken.generate()
        try await ClientRegistry.with(
            configuration: try AuthConfiguration(environment: authEnvironment), logger: logger
        ) {
            try await $0.createOrUpdateClient(id: clientID, scopes: [Scope.pushSend], apps: [appId], secret: secret)
        }
        step("0. clients create: backend client '\(clientID)' (scope push:send) may send for app '\(appId)' only")
        return SecurePushDemo.SecondApp(
            appId: appId, clientID: clientID, clientSecret: secret,
            vapidPublicKey: vapid.publicKey.x963Representation.base64URLEncodedString())
    }
}
