import Foundation
import Logging
import RPCServer
import SealedPush
import ServiceCore
import SharedModels

/// The `devices.*` logic: registering, listing, removing devices and acknowledging deliveries. Knows nothing of HTTP.
public struct DeviceRegistry: Sendable {
    /// Longest device token accepted, in UTF-8 bytes (a Web Push subscription is the largest kind).
    public static let maxTokenLength = TextLimit.deviceToken.bytes.upperBound
    /// Longest device name accepted, in UTF-8 bytes.
    public static let maxNameLength = TextLimit.deviceName.bytes.upperBound

    let devices: any DeviceRepository
    let deliveries: any DeliveryRepository
    let providers: PushProviderRegistry
    let hub: DirectHub
    /// Most devices one user may register (`SECUREPUSH_MAX_DEVICES_PER_USER`); `nil` for no limit.
    let maxDevicesPerUser: Int?
    let now: @Sendable () -> Date
    let logger: Logger
    /// `securepush_direct_ack_latency_seconds`.
    let metrics: DispatchMetrics
    /// Called after a change that may have queued a device revocation for the store (the sender sends it at once).
    let revocationQueued: @Sendable () -> Void
    /// `SECUREPUSH_CORS_ORIGINS`: where a browser may register devices of an app without origins of its own.
    let browserOrigins: CORSPolicy
    /// Where devices moving to another user are recorded (``DispatchMethods`` records the rest).
    let audit: AuditTrail?

    public init(
        devices: any DeviceRepository,
        deliveries: any DeliveryRepository,
        providers: PushProviderRegistry,
        hub: DirectHub,
        maxDevicesPerUser: Int? = DispatchConfiguration.defaultMaxDevicesPerUser,
        now: @escaping @Sendable () -> Date,
        logger: Logger,
        metrics: DispatchMetrics = .disabled,
        revocationQueued: @escaping @Sendable () -> Void = {},
        browserOrigins: CORSPolicy = .none,
        audit: AuditTrail? = nil
    ) {
        self.browserOrigins = browserOrigins
        self.audit = audit
        self.revocationQueued = revocationQueued
        self.devices = devices
        self.deliveries = deliveries
        self.providers = providers
        self.hub = hub
        self.maxDevicesPerUser = maxDevicesPerUser
        self.now = now
        self.logger = logger
        self.metrics = metrics
    }

    /// Registers a device for `ownerID`, or updates the device already registered with this platform token.
    /// `apnsMode` (`alert` or `background`, APNs devices only) overrides the deployment's mode for this device.
    /// `publicKey` (base64url X9.62 P-256) makes it a sealed device; re-registering without one makes it unsealed.
    /// `appID` names the device's app (`nil`: the deployment's default app); the app must exist (else `-32602` naming
    /// `appId`) and have the platform configured (else `-32602` naming `platform`). A browser's call from another
    /// origin than push-dispatch's own (`origin`, its `Origin` header) registers a device of an app only from one of
    /// the app's origins, or for an app without origins of its own from one of `SECUREPUSH_CORS_ORIGINS` (else
    /// `-32003`): a page allowed for app B never registers devices of app A.
    public func register(
        ownerID: String, platform: Platform, token: String?, name: String?, apnsMode: String? = nil,
        publicKey: String? = nil, appID: String? = nil, origin: String? = nil
    ) async throws -> DeviceRecord {
        let app = try await providers.app(appID ?? providers.catalog.defaultAppID)
        if let origin,
            !(app.allowedOrigins.isEmpty ? browserOrigins.allows(origin) : app.allowedOrigins.contains(origin))
        {
            logger.security(
                SecurityEvent("devices.origin_refused"),
                metadata: [
                    LogMetadataKey.userID: "\(ownerID)", "app.id": "\(app.id)", "http.origin": "\(origin.prefix(100))",
                ])
            throw DispatchError.originNotAllowed(appID: app.id)
        }
        let provider = try providers.provider(for: platform, of: app)
        let maxDevicesPerUser = app.maxDevicesPerUser ?? self.maxDevicesPerUser
        if let apnsMode {
            guard platform == .apns else {
                throw DispatchError.invalidField("apnsMode", "only applies to platform apns")
            }
            guard APNsPushMode(rawValue: apnsMode) != nil else {
                throw DispatchError.invalidField("apnsMode", "must be alert or background")
            }
        }
        if let token, let reason = TextLimit.deviceToken.violation(in: token) {
            throw DispatchError.invalidField("token", reason)
        }
        if let name, let reason = TextLimit.deviceName.violation(in: name) {
            throw DispatchError.invalidField("name", reason)
        }
        var storedKey: String?
        if let publicKey {
            do throws(DevicePublicKeyError) {
                storedKey = try DevicePublicKey(base64URL: publicKey).base64URL
            } catch {
                throw DispatchError.invalidField("publicKey", error.reason)
            }
        }
        let storedToken = try provider.validateToken(token)
        let registration: DeviceRegistration
        do {
            registration = try await devices.register(
                ownerID: ownerID, platform: platform, token: storedToken, name: name, apnsMode: apnsMode,
                publicKey: storedKey, appID: app.id, maxDevices: maxDevicesPerUser, now: now())
        } catch let error as DispatchError where error.rpcError.code == RPCErrorCode.rateLimited {
            logger.security(
                SecurityEvent("devices.quota_exceeded"),
                metadata: [
                    LogMetadataKey.userID: "\(ownerID)", "quota.limit": "\(maxDevicesPerUser ?? 0)",
                    "app.id": "\(app.id)",
                ])
            throw error
        }
        let device = registration.device
        if device.isPendingVerification {
            logger.security(
                SecurityEvent("devices.verification_pending"),
                metadata: [
                    LogMetadataKey.deviceID: "\(device.id)", LogMetadataKey.platform: "\(platform)",
                    LogMetadataKey.userID: "\(ownerID)",
                ])
            if let challenge = registration.challenge {
                await push(challenge: challenge, to: device, via: provider)
            }
            return device
        }
        revocationQueued()
        if let previousOwnerID = registration.previousOwnerID {
            // The previous owner's open streams end now; the new owner's ids never reach them.
            await hub.close(deviceID: device.id, except: ownerID)
            logger.security(
                SecurityEvent("devices.owner_changed"),
                metadata: [
                    LogMetadataKey.deviceID: "\(device.id)", LogMetadataKey.platform: "\(platform)",
                    LogMetadataKey.previousUserID: "\(previousOwnerID)", LogMetadataKey.userID: "\(ownerID)",
                ])
            recordMove(device.id, from: previousOwnerID, to: ownerID)
        }
        logger.debug(
            "devices.registered",
            metadata: [LogMetadataKey.deviceID: "\(device.id)", LogMetadataKey.platform: "\(platform)"])
        return device
    }

    /// Pushes a pending device's challenge to its token, once (the user registers again to have it pushed again).
    private func push(challenge: String, to device: DeviceRecord, via provider: any PushProvider) async {
        guard let remote = provider as? any RemotePushProvider else { return }
        let expiresAt = now().addingTimeInterval(DeviceVerification.window.timeInterval)
        let outcome = await remote.deliver(.challenge(challenge, to: device, until: expiresAt))
        logger.debug(
            "devices.challenge_pushed",
            metadata: [LogMetadataKey.deviceID: "\(device.id)", "devices.challenge_outcome": "\(outcome)"])
    }

    /// Answers a pending device's challenge (`devices.verify`): the right answer moves the token's device to the
    /// caller under the pending id, ending the previous owner's streams; a wrong, late or exhausted answer is
    /// `-32602` naming `challenge`; a pending device that is missing or someone else's is `-32004`.
    public func verify(deviceID: String, challenge: String, ownerID: String) async throws -> DeviceRecord {
        guard challenge.utf8.count <= Self.maxChallengeLength else {
            throw DispatchError.invalidField(
                "challenge", "must be the securepushChallenge the device received (22 characters)")
        }
        // The pending device's app may have its own device limit, as at registration.
        var limit = maxDevicesPerUser
        if let pending = try await devices.pendingDevices(ownerID: ownerID, now: now()).first(where: {
            $0.id == deviceID
        }),
            let app = await providers.catalog.app(pending.appID), let own = app.maxDevicesPerUser
        {
            limit = own
        }
        switch try await devices.verify(
            id: deviceID, ownerID: ownerID, challenge: challenge, maxDevices: limit, now: now())
        {
        case .verified(let registration):
            let device = registration.device
            revocationQueued()
            if let replaced = registration.replacedDeviceID { await hub.close(deviceID: replaced) }
            if let previousOwnerID = registration.previousOwnerID {
                logger.security(
                    SecurityEvent("devices.owner_changed"),
                    metadata: [
                        LogMetadataKey.deviceID: "\(device.id)", LogMetadataKey.platform: "\(device.platform)",
                        LogMetadataKey.previousUserID: "\(previousOwnerID)", LogMetadataKey.userID: "\(ownerID)",
                    ])
                recordMove(device.id, from: previousOwnerID, to: ownerID)
            }
            return device
        case .wrongChallenge(let triesLeft):
            logger.security(
                SecurityEvent("devices.verification_failed"),
                metadata: [LogMetadataKey.deviceID: "\(deviceID)", LogMetadataKey.userID: "\(ownerID)"])
            throw DispatchError.invalidField(
                "challenge", "does not match the challenge pushed to the device (\(triesLeft) tries left)")
        case .triesExhausted:
            logger.security(
                SecurityEvent("devices.verification_failed"),
                metadata: [LogMetadataKey.deviceID: "\(deviceID)", LogMetadataKey.userID: "\(ownerID)"])
            throw DispatchError.invalidField(
                "challenge",
                "does not match, and that was the last of \(DeviceVerification.maxTries) tries: register the device "
                    + "again for a new challenge")
        case .expired:
            throw DispatchError.invalidField(
                "challenge",
                "expired (a challenge is valid for \(DeviceVerification.window.components.seconds / 60) minutes): "
                    + "register the device again for a new one")
        case .notFound:
            throw DispatchError.deviceNotFound
        }
    }

    /// Longest challenge answer looked at (a real one is 22 characters).
    static let maxChallengeLength = 64

    /// The owner's devices, oldest first, then the owner's pending devices (waiting for `devices.verify`).
    public func list(ownerID: String) async throws -> [DeviceRecord] {
        try await devices.devices(ownerID: ownerID) + devices.pendingDevices(ownerID: ownerID, now: now())
    }

    /// Removes the owner's device; its open event streams end. `-32004` when it is missing or someone else's.
    public func unregister(deviceID: String, ownerID: String) async throws {
        guard try await devices.unregister(id: deviceID, ownerID: ownerID, now: now()) else {
            throw DispatchError.deviceNotFound
        }
        revocationQueued()
        await hub.close(deviceID: deviceID)
        logger.debug("devices.unregistered", metadata: [LogMetadataKey.deviceID: "\(deviceID)"])
    }

    /// The owner's device with this id; `-32004` when it is missing or someone else's.
    public func device(id: String, ownerID: String) async throws -> DeviceRecord {
        guard let device = try await devices.device(id: id), device.ownerID == ownerID else {
            throw DispatchError.deviceNotFound
        }
        return device
    }

    /// The device has the notification id: its delivery is `acknowledged` and never sent again.
    public func acknowledge(deviceID: String, notificationID: String, ownerID: String) async throws {
        _ = try await device(id: deviceID, ownerID: ownerID)
        let acknowledgedAt = now()
        switch try await deliveries.acknowledge(deviceID: deviceID, notificationID: notificationID, now: acknowledgedAt)
        {
        case nil:
            throw DispatchError.notificationNotFound
        case .acknowledged(.direct, let sentAt):
            // The first acknowledgement only: a repeated one changes nothing and is not measured again.
            metrics.directAckLatency.recordLatency(since: sentAt, until: acknowledgedAt)
        case .acknowledged, .alreadyEnded:
            break
        }
    }

    /// The device's pending deliveries (not acknowledged, not expired), in the order its stream writes them.
    public func pendingJobs(deviceID: String, after sequence: Int64 = 0, limit: Int = 100) async throws -> [DeliveryJob]
    {
        try await deliveries.pendingJobs(deviceID: deviceID, after: sequence, now: now(), limit: limit)
    }

    /// A device taken over by another user (its push token registered again under them).
    private func recordMove(_ deviceID: String, from previousOwnerID: String, to ownerID: String) {
        audit?.record(
            "devices.moved",
            [
                "device": .device(deviceID, owner: ownerID), "user": .user(ownerID),
                "previousUser": .user(previousOwnerID),
            ])
    }
}
