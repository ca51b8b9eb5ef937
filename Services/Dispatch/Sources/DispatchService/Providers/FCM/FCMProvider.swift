import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import ServiceCore
import SharedModels

/// Delivers notification ids to Android (and other FCM) apps through the FCM HTTP v1 API.
///
/// Each attempt is one `POST /v1/projects/{project}/messages:send` with a data-only, high-priority message
/// `{"secureId": "<id>"}` (see `FCMSendRequest`), authorised by an OAuth access token obtained with the service
/// account's key and cached until shortly before it expires. Call `shutdown()` before dropping the provider: it
/// owns an HTTP client.
public final class FCMProvider: RemotePushProvider {
    public let platform = Platform.fcm
    let configuration: FCMConfiguration
    let client: HTTPClient
    let tokens: OAuthTokenCache
    let sendURL: String
    let logger: Logger
    let now: @Sendable () -> Date

    /// - Parameters:
    ///   - configuration: the service account, project, endpoint and trust settings.
    ///   - logger: the service's logger (delivery details go to `debug`, refused credentials to `error`).
    ///   - now: the clock for token lifetimes, assertion times and TTLs (tests move it instead of sleeping).
    /// - Throws: when the private key or the CA file cannot be loaded.
    public init(
        configuration: FCMConfiguration, logger: Logger, now: @escaping @Sendable () -> Date = { Date() }
    ) throws {
        let client = try RemoteProviderHTTP.makeClient(
            caFile: configuration.caFile, connectTimeout: configuration.connectTimeout)
        let fetcher: GoogleAccessTokenFetcher
        do {
            fetcher = try GoogleAccessTokenFetcher(
                account: configuration.serviceAccount,
                endpoint: OAuthTokenEndpoint(
                    url: configuration.serviceAccount.tokenURI, client: client, timeout: configuration.requestTimeout),
                now: now
            )
        } catch {
            try? client.syncShutdown()
            throw error
        }
        self.configuration = configuration
        self.client = client
        self.tokens = OAuthTokenCache(now: now) {
            do {
                return try await fetcher.fetch()
            } catch {
                // Logged once per fetch, not per delivery: every waiting delivery shares this failure.
                logger.error("fcm.oauth failed", metadata: ["fcm.error": "\(error)"])
                throw error
            }
        }
        self.sendURL = "\(configuration.baseURL)/v1/projects/\(configuration.projectID)/messages:send"
        self.logger = logger
        self.now = now
    }

    /// The FCM registration token: non-empty, at most 4096 bytes, printable ASCII without spaces.
    public func validateToken(_ token: String?) throws(DispatchError) -> String? {
        try FCMRegistrationToken.validate(token)
    }

    /// Sends the job's id to its device; a 401 refreshes the access token once and tries again.
    public func deliver(_ job: DeliveryJob, responses: ProviderResponses) async -> DeliveryOutcome {
        let registrationToken: String
        do {
            registrationToken = try FCMRegistrationToken.validate(job.deviceToken)
        } catch {
            return .failed(reason: "invalid FCM registration token")
        }
        let ttl = Int(job.expiresAt.timeIntervalSince(now()).rounded(.down))
        let body = FCMSendRequest(
            registrationToken: registrationToken, notificationID: job.notificationID, ttlSeconds: ttl,
            traceParent: job.traceParent, challenge: job.challenge, deviceID: job.deviceID, priority: job.priority,
            collapseKey: job.collapseID)
        guard let json = try? JSONEncoder.fcm.encode(body) else {
            return .failed(reason: "cannot encode the FCM message")
        }
        var outcome = await send(json, notificationID: job.notificationID, responses: responses)
        if case .refreshToken(let staleToken) = outcome {
            await tokens.invalidate(staleToken)
            outcome = await send(json, notificationID: job.notificationID, responses: responses)
        }
        return outcome.deliveryOutcome
    }

    /// One `messages:send` with the current access token; its answer (or that none came) goes to `responses`.
    private func send(_ json: Data, notificationID: String, responses: ProviderResponses) async -> SendOutcome {
        let accessToken: String
        do {
            accessToken = try await tokens.token()
        } catch {
            return .delivery(.retry(after: .zero, reason: "FCM access token: \(error)"))
        }
        let response: RemoteProviderHTTP.Response
        do {
            response = try await RemoteProviderHTTP.execute(
                request(json: json, accessToken: accessToken), on: client, timeout: configuration.requestTimeout)
        } catch {
            if !(error is CancellationError) { responses.recordTransportFailure() }
            logger.debug("fcm.send unreachable", metadata: ["fcm.error": "\(error)"])
            return .delivery(.retry(after: .zero, reason: "FCM unreachable: \(error)"))
        }
        responses.record(status: Int(response.status), reason: Self.reasonCode(of: response))
        logger.debug(
            "fcm.send answered",
            metadata: ["fcm.status": "\(response.status)", LogMetadataKey.notificationID: "\(notificationID)"])
        return outcome(for: response, accessToken: accessToken)
    }

    /// Closes the HTTP client; the provider must not be used afterwards.
    public func shutdown() async {
        try? await client.shutdown()
    }

    private func request(json: Data, accessToken: String) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: sendURL)
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Bearer \(accessToken)")
        request.headers.add(name: "Content-Type", value: "application/json; charset=UTF-8")
        request.body = .bytes(ByteBuffer(bytes: json))
        return request
    }
}

extension JSONEncoder {
    /// Sorted keys make the body byte-for-byte reproducible.
    fileprivate static var fcm: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
