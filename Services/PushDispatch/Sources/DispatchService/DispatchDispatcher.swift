import ServiceCore
import SharedModels

/// Registers every push-dispatch method (exactly `MethodCatalog.dispatch`) on a dispatcher.
///
/// Each handler authenticates first, then checks the scope (`user` for `devices.*`, `push:send` for `push.*`),
/// then hands the params to the domain, so callers without the right token learn nothing.
/// - Parameters:
///   - devices: the `devices.*` logic.
///   - pushes: the `push.*` logic.
///   - verifier: verifies bearer tokens locally with auth's keys.
///   - maxBatchLength: most calls a batch may hold.
public func makeDispatchDispatcher(
    devices: DeviceRegistry,
    pushes: PushSender,
    verifier: AccessTokenVerifier,
    maxBatchLength: Int = 100
) -> RPCDispatcher {
    var dispatcher = RPCDispatcher(maxBatchLength: maxBatchLength)

    dispatcher.register(Devices.Register.self) { params, context in
        let userID = try await context.authenticate(with: verifier).requireUser()
        let device = try await devices.register(
            ownerID: userID, platform: params.platform, token: params.token, name: params.name,
            apnsMode: params.apnsMode, publicKey: params.publicKey)
        return Devices.Register.Result(deviceId: device.id)
    }

    dispatcher.register(Devices.List.self) { _, context in
        let userID = try await context.authenticate(with: verifier).requireUser()
        return Devices.List.Result(devices: try await devices.list(ownerID: userID).map(\.info))
    }

    dispatcher.register(Devices.Unregister.self) { params, context in
        let userID = try await context.authenticate(with: verifier).requireUser()
        try await devices.unregister(deviceID: params.deviceId, ownerID: userID)
        return Empty()
    }

    dispatcher.register(Devices.Ack.self) { params, context in
        let userID = try await context.authenticate(with: verifier).requireUser()
        try await devices.acknowledge(deviceID: params.deviceId, notificationID: params.notificationId, ownerID: userID)
        return Empty()
    }

    dispatcher.register(Push.Send.self) { params, context in
        let principal = try await context.authenticate(with: verifier)
        try principal.require(scope: Scope.pushSend)
        return try await pushes.send(clientID: principal.subject, params: params)
    }

    dispatcher.register(Push.Status.self) { params, context in
        let principal = try await context.authenticate(with: verifier)
        try principal.require(scope: Scope.pushSend)
        return try await pushes.status(clientID: principal.subject, notificationID: params.notificationId)
    }

    return dispatcher
}
