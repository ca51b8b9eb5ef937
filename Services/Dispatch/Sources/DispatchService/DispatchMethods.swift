import ServiceCore
import SharedModels

/// push-dispatch's JSON-RPC methods (exactly `MethodCatalog.dispatch`), each registered with the access it requires
/// (`user` for `devices.*`, `push:send` for `push.*`) and mapped onto the domain, so callers without the right token
/// learn nothing.
public enum DispatchMethods {
    /// The dispatcher serving every push-dispatch method.
    /// - Parameters:
    ///   - devices: the `devices.*` logic.
    ///   - pushes: the `push.*` logic.
    ///   - verifier: verifies bearer tokens locally with auth's keys.
    ///   - apps: the `apps.*` methods (scope `apps:admin`); `nil` registers none.
    ///   - webhooks: the `webhooks.*` methods (scope `webhooks:manage`); `nil` registers none.
    ///   - maxBatchLength: most calls a batch may hold.
    ///   - audit: where sends, cancels and device changes are recorded (`nil`: nowhere).
    static func dispatcher(
        devices: DeviceRegistry,
        pushes: PushSender,
        verifier: AccessTokenVerifier,
        apps: AppsMethods? = nil,
        webhooks: WebhookMethods? = nil,
        maxBatchLength: Int = 100,
        audit: AuditTrail? = nil,
        eraser: DispatchUserEraser? = nil
    ) -> RPCDispatcher {
        var methods = MethodRegistry(verifier: verifier, maxBatchLength: maxBatchLength)
        apps?.register(on: &methods)
        webhooks?.register(on: &methods)

        // Public, like auth.keys: a web app needs it before anyone signs in.
        methods.registerAdmittingItself(Devices.WebPushKey.self) { params, _ in
            let app = try await devices.providers.app(params.appId ?? devices.providers.catalog.defaultAppID)
            // Each app publishes its own VAPID key (the environment's app: the SECUREPUSH_VAPID_* one).
            guard let key = (app.providers[.webpush] as? WebPushProvider)?.applicationServerKey else {
                throw RPCError.notFound(
                    app.id == AppCatalog.environmentAppID
                        ? "Web Push key: Web Push is not configured (SECUREPUSH_VAPID_PRIVATE_KEY_FILE)"
                        : "Web Push key: app '\(app.id)' has no Web Push credentials")
            }
            return Devices.WebPushKey.Result(vapidPublicKey: key)
        }

        methods.register(Devices.Register.self, requires: .user) { params, user, context in
            let device = try await devices.register(
                ownerID: user.subject, platform: params.platform, token: params.token, name: params.name,
                apnsMode: params.apnsMode, publicKey: params.publicKey, appID: params.appId,
                origin: context.isOwnOrigin ? nil : context.origin)
            audit?.record(
                "devices.registered",
                [
                    "user": .user(user.subject), "device": .device(device.id, owner: user.subject),
                    "platform": .text(device.platform.rawValue), "app": .text(device.appID),
                    "pendingVerification": .flag(device.isPendingVerification),
                    "address": .address(context.clientAddress),
                ])
            return Devices.Register.Result(
                deviceId: device.id, verification: device.isPendingVerification ? DeviceVerification.pending : nil)
        }

        methods.register(Devices.Verify.self, requires: .user) { params, user, context in
            let device: DeviceRecord
            do {
                device = try await devices.verify(
                    deviceID: params.deviceId, challenge: params.challenge, ownerID: user.subject)
            } catch {
                audit?.record(
                    "devices.verification_failed",
                    [
                        "user": .user(user.subject), "device": .device(params.deviceId, owner: user.subject),
                        "address": .address(context.clientAddress),
                    ])
                throw error
            }
            audit?.record(
                "devices.verified",
                [
                    "user": .user(user.subject), "device": .device(device.id, owner: user.subject),
                    "address": .address(context.clientAddress),
                ])
            return Devices.Verify.Result(deviceId: device.id)
        }

        methods.register(Devices.List.self, requires: .user) { _, user, _ in
            Devices.List.Result(devices: try await devices.list(ownerID: user.subject).map(\.info))
        }

        methods.register(Devices.Unregister.self, requires: .user) { params, user, context in
            try await devices.unregister(deviceID: params.deviceId, ownerID: user.subject)
            audit?.record(
                "devices.unregistered",
                [
                    "user": .user(user.subject), "device": .device(params.deviceId, owner: user.subject),
                    "address": .address(context.clientAddress),
                ])
            return Empty()
        }

        methods.register(Devices.Ack.self, requires: .user) { params, user, _ in
            try await devices.acknowledge(
                deviceID: params.deviceId, notificationID: params.notificationId, ownerID: user.subject)
            audit?.record(
                "devices.ack",
                [
                    "user": .user(user.subject), "device": .device(params.deviceId, owner: user.subject),
                    "notification": .text(params.notificationId),
                ])
            return Empty()
        }

        // Only auth's own erasure tokens carry `users:erase` (auth never gives it to a client).
        if let eraser {
            methods.register(Devices.EraseUser.self, requires: .scope(Scope.usersErase)) { params, _, _ in
                try await eraser.eraseUser(params.userId)
            }
        }

        methods.register(PushSendCall.self, requires: .scope(Scope.pushSend)) { params, client, context in
            switch params {
            case .one(let params):
                let result = try await pushes.send(clientID: client.subject, apps: client.apps, params: params)
                audit?.record(
                    PushSendCall.auditEvent(
                        client: client.subject, recipient: params.recipientId, notification: result.notificationId,
                        app: params.appId, sealedOnly: params.sealedOnly, readOnce: params.readOnce,
                        sendAt: params.sendAt, deliveries: result.deliveries.count, address: context.clientAddress))
                return .one(result)
            case .many(let params):
                let result = try await pushes.sendToMany(clientID: client.subject, apps: client.apps, params: params)
                for sent in result.notifications {
                    audit?.record(
                        PushSendCall.auditEvent(
                            client: client.subject, recipient: sent.recipientId, notification: sent.notificationId,
                            app: params.appId, sealedOnly: params.sealedOnly, readOnce: params.readOnce,
                            sendAt: params.sendAt, deliveries: nil, address: context.clientAddress))
                }
                return .many(result)
            }
        }

        methods.register(Push.Cancel.self, requires: .scope(Scope.pushSend)) { params, client, context in
            try await pushes.cancel(clientID: client.subject, notificationID: params.notificationId)
            audit?.record(
                "push.cancel",
                [
                    "client": .text(client.subject), "notification": .text(params.notificationId),
                    "address": .address(context.clientAddress),
                ])
            return Empty()
        }

        methods.register(Push.Status.self, requires: .scope(Scope.pushSend)) { params, client, _ in
            try await pushes.status(clientID: client.subject, notificationID: params.notificationId)
        }

        return methods.dispatcher
    }
}
