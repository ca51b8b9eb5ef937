import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import ServiceCore
import SharedModels

/// Delivers notification ids to Windows apps as WNS raw notifications.
///
/// Each attempt is one `POST <channel URI>` with `X-WNS-Type: wns/raw` whose body is the id's UTF-8 bytes and
/// nothing else (a device-verification challenge is `{"securepushChallenge":"…","securepushDeviceId":"…"}` instead), authorised by an access token from the client-credentials grant, cached until shortly before it
/// expires. Call `shutdown()` before dropping the provider: it owns an HTTP client.
public final class WNSProvider: RemotePushProvider {
    public let platform = Platform.wns
    let configuration: WNSConfiguration
    let client: HTTPClient
    let tokens: OAuthTokenCache
    let logger: Logger
    let now: @Sendable () -> Date

    /// - Parameters:
    ///   - configuration: credentials, token endpoint, trust and channel-host settings.
    ///   - logger: the service's logger (delivery details go to `debug`, refused credentials to `error`).
    ///   - now: the clock for token lifetimes and TTLs (tests move it instead of sleeping).
    /// - Throws: when the CA file cannot be loaded.
    public init(
        configuration: WNSConfiguration, logger: Logger, now: @escaping @Sendable () -> Date = { Date() }
    ) throws {
        let client = try RemoteProviderHTTP.makeClient(
            caFile: configuration.caFile, connectTimeout: configuration.connectTimeout)
        let fetcher = WNSAccessTokenFetcher(
            configuration: configuration,
            endpoint: OAuthTokenEndpoint(
                url: configuration.tokenURL, client: client, timeout: configuration.requestTimeout)
        )
        self.configuration = configuration
        self.client = client
        self.tokens = OAuthTokenCache(now: now) {
            do {
                return try await fetcher.fetch()
            } catch {
                // Logged once per fetch, not per delivery: every waiting delivery shares this failure.
                logger.error("wns.oauth failed", metadata: ["wns.error": "\(error)"])
                throw error
            }
        }
        self.logger = logger
        self.now = now
    }

    /// The channel URI: an `https://` URL on `*.notify.windows.com` (any host when `allowAnyHost`).
    public func validateToken(_ token: String?) throws(DispatchError) -> String? {
        try WNSChannelURI.validate(token, allowAnyHost: configuration.allowAnyHost)
    }

    /// Posts the job's id to the device's channel; a 401 refreshes the access token once and tries again.
    public func deliver(_ job: DeliveryJob, responses: ProviderResponses) async -> DeliveryOutcome {
        let channel: String
        do {
            // Checked again: the token may have been stored under a laxer configuration.
            channel = try WNSChannelURI.validate(job.deviceToken, allowAnyHost: configuration.allowAnyHost)
        } catch {
            return .failed(reason: "invalid WNS channel URI")
        }
        // WNS keeps an undelivered notification this long; it needs at least one second.
        let ttl = max(1, Int(job.expiresAt.timeIntervalSince(now()).rounded(.down)))
        // A challenge is base64url and a device id a UUID: nothing in either needs escaping in JSON.
        let body =
            job.challenge.map {
                #"{"\#(DeviceVerification.pushField)":"\#($0)","\#(DeviceVerification.deviceField)":"\#(job.deviceID)"}"#
            } ?? job.notificationID
        var outcome = await send(
            channel: channel, notificationID: job.notificationID, body: body, ttl: ttl, priority: job.priority,
            responses: responses)
        if case .refreshToken(let staleToken) = outcome {
            await tokens.invalidate(staleToken)
            outcome = await send(
                channel: channel, notificationID: job.notificationID, body: body, ttl: ttl, priority: job.priority,
                responses: responses)
        }
        return outcome.deliveryOutcome
    }

    /// One POST to the channel with the current access token; its answer (or that none came) goes to `responses`.
    private func send(
        channel: String, notificationID: String, body: String, ttl: Int, priority: Push.Priority?,
        responses: ProviderResponses
    )
        async
        -> SendOutcome
    {
        let accessToken: String
        do {
            accessToken = try await tokens.token()
        } catch {
            return .delivery(.retry(after: .zero, reason: "WNS access token: \(error)"))
        }
        let response: RemoteProviderHTTP.Response
        do {
            response = try await RemoteProviderHTTP.execute(
                request(channel: channel, body: body, ttl: ttl, priority: priority, accessToken: accessToken),
                on: client, timeout: configuration.requestTimeout)
        } catch {
            if !(error is CancellationError) { responses.recordTransportFailure() }
            logger.debug("wns.send unreachable", metadata: ["wns.error": "\(error)"])
            return .delivery(.retry(after: .zero, reason: "WNS unreachable: \(error)"))
        }
        responses.record(status: Int(response.status), reason: response.header("X-WNS-Status")?.lowercased())
        logger.debug(
            "wns.send answered",
            metadata: [
                "wns.status": "\(response.status)", "wns.msg_id": "\(response.header("X-WNS-Msg-ID") ?? "")",
                LogMetadataKey.notificationID: "\(notificationID)",
            ])
        return outcome(for: response, accessToken: accessToken)
    }

    /// Closes the HTTP client; the provider must not be used afterwards.
    public func shutdown() async {
        try? await client.shutdown()
    }

    /// `X-WNS-PRIORITY` for a send's priority: 1 (high: delivered whatever the power state) or 2 (normal: held
    /// back by battery saver); none when the send names none (WNS's default).
    static func wnsPriority(_ priority: Push.Priority?) -> String? {
        switch priority {
        case .high?: "1"
        case .normal?: "2"
        default: nil
        }
    }

    private func request(channel: String, body: String, ttl: Int, priority: Push.Priority?, accessToken: String)
        -> HTTPClientRequest
    {
        var request = HTTPClientRequest(url: channel)
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Bearer \(accessToken)")
        request.headers.add(name: "Content-Type", value: "application/octet-stream")
        request.headers.add(name: "X-WNS-Type", value: "wns/raw")
        request.headers.add(name: "X-WNS-TTL", value: "\(ttl)")
        if let priority = Self.wnsPriority(priority) { request.headers.add(name: "X-WNS-PRIORITY", value: priority) }
        // Raw notifications are dropped for an offline device unless cached; the id must survive until it connects.
        request.headers.add(name: "X-WNS-Cache-Policy", value: "cache")
        request.body = .bytes(ByteBuffer(string: body))
        return request
    }
}
