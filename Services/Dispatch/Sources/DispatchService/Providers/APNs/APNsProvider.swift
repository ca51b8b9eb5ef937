import Foundation
import HTTP2Client
import Logging
import ServiceCore
import SharedModels
import Synchronization

/// Delivers notification ids to Apple devices through the APNs provider API (HTTP/2, token-based auth).
///
/// - One long-lived HTTP/2 connection per provider (one credential set); concurrent deliveries are concurrent
///   streams on it, and nghttp2 (HTTP2Client's core) holds back streams beyond the server's
///   `SETTINGS_MAX_CONCURRENT_STREAMS`.
///   After GOAWAY or a lost connection the next delivery opens a new one; an HTTP/2 PING every
///   ``APNsConfiguration/pingInterval`` finds a connection that died silently and retires it.
/// - One provider token (ES256 JWT) is shared by every request and replaced on Apple's schedule
///   (see ``APNsProviderTokenCache``); after `403 ExpiredProviderToken` the token is replaced once and the
///   request sent once more.
/// - The body carries the notification id and, in alert mode, the operator's fallback text: never the payload.
///
/// Call ``shutdown()`` when done: it closes the connection.
public final class APNsProvider: RemotePushProvider {
    public let platform = Platform.apns
    let configuration: APNsConfiguration
    let client: HTTP2Client
    let tokens: APNsProviderTokenCache
    let logger: Logger
    let now: @Sendable () -> Date
    /// The periodic connection check, stopped by ``shutdown()``.
    let monitor = Mutex<Task<Void, Never>?>(nil)

    /// - Parameters:
    ///   - configuration: endpoint, credentials, topic and mode.
    ///   - logger: `debug` for routine events, `warning` when APNs refuses a notification for good.
    ///   - now: the clock for provider tokens (`iat`, refresh) and `Retry-After` dates; tests move it by hand.
    /// - Throws: `ConfigurationError` when the configuration is invalid or the endpoint or CA file is unusable.
    public init(
        configuration: APNsConfiguration,
        logger: Logger,
        now: @escaping @Sendable () -> Date = { Date() }
    ) throws {
        try configuration.validate()
        var logger = logger
        logger[metadataKey: "push.provider"] = "apns"
        do {
            client = try HTTP2Client(
                baseURL: configuration.baseURL,
                configuration: HTTP2ClientConfiguration(
                    connectTimeout: configuration.connectTimeout,
                    requestTimeout: configuration.requestTimeout,
                    trustRootsPEMFile: configuration.caFile,
                    maxResponseBytes: 64 << 10
                ),
                logger: logger
            )
        } catch {
            throw ConfigurationError("APNs endpoint '\(configuration.baseURL)': \(error)")
        }
        self.configuration = configuration
        self.tokens = APNsProviderTokenCache(
            keyID: configuration.keyID,
            teamID: configuration.teamID,
            key: configuration.signingKey,
            refreshAge: configuration.tokenRefreshAge,
            now: now
        )
        self.logger = logger
        self.now = now
        if let pingInterval = configuration.pingInterval {
            startConnectionMonitor(every: pingInterval)
        }
    }

    /// A hex device token (64–200 hex digits, even length), stored in lower case.
    public func validateToken(_ token: String?) throws(DispatchError) -> String? {
        try APNsDeviceToken.validate(token)
    }

    /// Sends the job's notification id to its device once (twice when the provider token had expired).
    public func deliver(_ job: DeliveryJob, responses: ProviderResponses) async -> DeliveryOutcome {
        var logger = logger
        logger[metadataKey: LogMetadataKey.notificationID] = "\(job.notificationID)"
        logger[metadataKey: LogMetadataKey.deviceID] = "\(job.deviceID)"
        // Checked at registration; checked again because it becomes part of the request path.
        guard let deviceToken = try? APNsDeviceToken.validate(job.deviceToken) else {
            return .failed(reason: "the device has no valid APNs token")
        }
        // A device may have chosen its own mode at registration; otherwise the deployment's applies. A challenge is
        // always a background push: it is for the app, not for the person holding the device.
        let mode =
            job.challenge != nil
            ? .background : job.apnsMode.flatMap(APNsPushMode.init(rawValue:)) ?? configuration.mode
        let payload =
            job.challenge.map { APNsPayload(challenge: $0, deviceID: job.deviceID) }
            ?? APNsPayload(
                notificationID: job.notificationID,
                mode: mode,
                alertTitle: configuration.alertTitle,
                alertBody: configuration.alertBody,
                traceParent: job.traceParent
            )
        let body = payload.encoded()
        guard body.count <= APNsPayload.maxBytes else {
            return .failed(reason: "PayloadTooLarge")
        }
        let request = APNsRequest(
            deviceToken: deviceToken,
            apnsID: APNsRequestID.make(notificationID: job.challenge ?? job.notificationID, deviceID: job.deviceID),
            expiresAt: job.expiresAt,
            body: body,
            mode: mode,
            priority: mode.priority(for: job.priority),
            collapseID: job.challenge == nil ? job.collapseID : nil
        )

        do {
            let token = try tokens.token()
            var response = try await send(request, token: token, responses: responses)
            if response.status == 403, response.reason == "ExpiredProviderToken" {
                switch try tokens.replace(token) {
                case .token(let fresh):
                    logger.debug("apns.token.expired", metadata: ["apns.retry": "with a new provider token"])
                    response = try await send(request, token: fresh, responses: responses)
                case .tooSoon(let retryAfter):
                    logger.warning(
                        "apns.token.expired",
                        metadata: ["apns.retry_after": "\(retryAfter)", "apns.note": "token younger than 20 minutes"]
                    )
                    return .retry(after: retryAfter, reason: "ExpiredProviderToken")
                }
            }
            return outcome(of: response, logger: logger)
        } catch let error as HTTP2ClientError {
            logger.debug("apns.unreachable", metadata: ["error": "\(error)"])
            return .retry(after: .zero, reason: "APNs unreachable: \(error)")
        } catch is CancellationError {
            return .retry(after: .zero, reason: "cancelled")
        } catch {
            // Signing the provider token failed: nothing APNs-specific, try again later.
            logger.error("apns.token.sign_failed", metadata: ["error": "\(error)"])
            return .retry(after: .zero, reason: "cannot sign the APNs provider token")
        }
    }

    /// Stops the connection check and closes the connection to APNs; later deliveries are retried by the worker.
    public func shutdown() async {
        let monitor = monitor.withLock { $0.take() }
        monitor?.cancel()
        await monitor?.value
        await client.shutdown()
    }

    private func outcome(of response: APNsResponse, logger: Logger) -> DeliveryOutcome {
        let outcome = response.outcome
        var metadata: Logger.Metadata = ["apns.status": "\(response.status)"]
        if let apnsID = response.apnsID { metadata["apns.id"] = "\(apnsID)" }
        if let uniqueID = response.apnsUniqueID { metadata["apns.unique_id"] = "\(uniqueID)" }
        if let reason = response.reason { metadata["apns.reason"] = "\(reason)" }
        switch outcome {
        case .sent: logger.debug("apns.sent", metadata: metadata)
        case .failed: logger.warning("apns.rejected", metadata: metadata)
        case .retry, .expired, .deactivate, .deactivateIfRegisteredBefore:
            logger.debug("apns.not_sent", metadata: metadata)
        }
        return outcome
    }
}
