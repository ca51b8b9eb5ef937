import AsyncHTTPClient
import Crypto
import Foundation
import Logging
import NIOCore
import NIOSSL
import ServiceCore
import SharedModels

/// Delivers notification ids to browsers through their push services: RFC 8030 delivery, RFC 8291 `aes128gcm`
/// encryption of `{"secureId":"<id>"}`, and RFC 8292 VAPID authentication.
///
/// The device token is the browser's `PushSubscription` JSON; the endpoint in it names the push service (FCM,
/// Mozilla autopush, Apple, WNS…), so one provider serves every browser.
public final class WebPushProvider: RemotePushProvider {
    public let platform = Platform.webpush
    /// The VAPID public key, base64url: what the web app passes to `pushManager.subscribe` as `applicationServerKey`.
    public let applicationServerKey: String

    let configuration: WebPushConfiguration
    let vapid: VAPIDSigner
    let httpClient: HTTPClient
    let logger: Logger
    let now: @Sendable () -> Date

    /// - Parameters:
    ///   - configuration: the VAPID identity and delivery settings.
    ///   - logger: for delivery diagnostics; never receives payloads.
    ///   - now: the clock for TTLs and VAPID token lifetimes (tests move it by hand).
    /// - Throws: `ConfigurationError` when the subject or the CA file is unusable.
    public init(
        configuration: WebPushConfiguration, logger: Logger, now: @escaping @Sendable () -> Date = { Date() }
    ) throws {
        try WebPushConfiguration.validateSubject(configuration.vapidSubject, variable: "SECUREPUSH_VAPID_SUBJECT")
        var tls = TLSConfiguration.makeClientConfiguration()
        if let caFile = configuration.caFile {
            let certificates = (try? NIOSSLCertificate.fromPEMFile(caFile)) ?? []
            guard !certificates.isEmpty else {
                throw ConfigurationError("SECUREPUSH_WEBPUSH_CA_FILE: '\(caFile)' holds no PEM certificate")
            }
            tls.trustRoots = .certificates(certificates)
        }
        // Everything that can throw is above: a created client must be shut down, never dropped.
        self.configuration = configuration
        self.vapid = VAPIDSigner(
            privateKey: configuration.vapidPrivateKey, subject: configuration.vapidSubject, now: now)
        self.applicationServerKey = vapid.publicKey
        self.logger = logger
        self.now = now
        var clientConfiguration = HTTPClient.Configuration(
            tlsConfiguration: tls,
            // A push service answers; it does not redirect. Following one would send the message elsewhere.
            redirectConfiguration: .disallow,
            timeout: .init(connect: .seconds(10))
        )
        // A failed connection ends the attempt at once: the delivery worker retries with backoff, durably.
        clientConfiguration.connectionPool.retryConnectionEstablishment = false
        self.httpClient = HTTPClient(
            eventLoopGroupProvider: .singleton, configuration: clientConfiguration, backgroundActivityLogger: logger)
        logger.debug("webpush.ready", metadata: ["webpush.application_server_key": "\(applicationServerKey)"])
    }

    /// Parses and checks the subscription JSON; stores its canonical form (see `WebPushSubscription`).
    public func validateToken(_ token: String?) throws(DispatchError) -> String? {
        let subscription = try WebPushSubscription(token: token)
        guard configuration.allows(host: subscription.host) else {
            throw .invalidField("token", "endpoint host '\(subscription.host)' is not an allowed push service")
        }
        if !configuration.isListed(host: subscription.host),
            subscription.host == "localhost" || OutboundAddresses.isNonPublic(subscription.host)
        {
            throw .invalidField("token", "endpoint host '\(subscription.host)' is not a public address")
        }
        return subscription.canonicalToken
    }

    /// Encrypts `{"secureId":"<id>"}` for the subscription and POSTs it to its endpoint, once.
    public func deliver(_ job: DeliveryJob, responses: ProviderResponses) async -> DeliveryOutcome {
        let subscription: WebPushSubscription
        do {
            subscription = try WebPushSubscription(token: job.deviceToken)
        } catch {
            return .failed(reason: "stored subscription is unusable: \(error)")
        }
        guard configuration.allows(host: subscription.host) else {
            return .failed(reason: "endpoint host '\(subscription.host)' is not in SECUREPUSH_WEBPUSH_ALLOWED_HOSTS")
        }
        if let refusal = await refusalOfNonPublicEndpoint(subscription) {
            // Not resolvable: no answer came.
            if case .retry = refusal { responses.recordTransportFailure() }
            return refusal
        }
        let request: HTTPClientRequest
        do {
            request = try makeRequest(for: job, to: subscription)
        } catch is WebPushEncryption.PlaintextTooLarge {
            return .failed(reason: "notification id too long for a Web Push message")
        } catch {
            return .failed(reason: "cannot prepare the Web Push message: \(error)")
        }

        let metadata: Logger.Metadata = [
            LogMetadataKey.notificationID: "\(job.notificationID)", LogMetadataKey.deviceID: "\(job.deviceID)",
            "webpush.origin": "\(subscription.origin)",
        ]
        let status: Int
        let retryAfter: String?
        let excerpt: String
        do {
            let response = try await httpClient.execute(request, timeout: .init(configuration.requestTimeout))
            status = Int(response.status.code)
            retryAfter = response.headers.first(name: "Retry-After")
            excerpt = await Self.readExcerpt(of: response.body)
        } catch {
            if !(error is CancellationError) { responses.recordTransportFailure() }
            logger.debug("webpush.unreachable", metadata: metadata.merging(["error": "\(error)"]) { $1 })
            return .retry(after: .zero, reason: "push service unreachable: \(error)")
        }
        // Push services name no reason codes of their own: the status says it.
        responses.record(status: status, reason: nil)
        if status == 401 || status == 403 {
            // The service rejected our VAPID token: sign a fresh one next time rather than repeat it.
            vapid.invalidate(origin: subscription.origin)
        }
        let outcome = Self.outcome(status: status, retryAfter: retryAfter, excerpt: excerpt, now: now())
        logger.debug(
            "webpush.delivered",
            metadata: metadata.merging(["http.status": "\(status)", "outcome": "\(outcome)"]) { $1 })
        return outcome
    }

    /// `.failed` when the endpoint's host resolves to a non-public address and is not allow-listed (a subscription
    /// must not point push-dispatch at this machine or its private networks); `.retry` when it cannot be resolved.
    func refusalOfNonPublicEndpoint(_ subscription: WebPushSubscription) async -> DeliveryOutcome? {
        guard !configuration.isListed(host: subscription.host) else { return nil }
        let addresses: [String]
        do {
            addresses = try await OutboundAddresses.resolve(
                subscription.host, port: subscription.endpoint.port ?? 443)
        } catch {
            return .retry(after: .zero, reason: "push service unreachable: \(error)")
        }
        guard let address = addresses.first(where: OutboundAddresses.isNonPublic) else { return nil }
        logger.security(
            SecurityEvent("webpush.endpoint.refused"),
            metadata: ["webpush.host": "\(subscription.host)", "webpush.address": "\(address)"])
        return .failed(reason: "endpoint host '\(subscription.host)' resolves to a non-public address")
    }

    /// Closes the HTTP client; call once, before the provider is dropped.
    public func shutdown() async {
        do {
            try await httpClient.shutdown()
        } catch {
            logger.debug("webpush.shutdown-failed", metadata: ["error": "\(error)"])
        }
    }

    /// The RFC 8030 §5 request: encrypted body, `TTL` until the notification expires, `Urgency` (the send's priority,
    /// else `SECUREPUSH_WEBPUSH_URGENCY`), `Topic` (the send's collapse id: the push service keeps the newest message
    /// per topic for an offline browser), VAPID.
    func makeRequest(for job: DeliveryJob, to subscription: WebPushSubscription) throws -> HTTPClientRequest {
        let body = try WebPushEncryption.encrypt(
            WebPushMessage(secureId: job.notificationID).encoded(), for: subscription)
        let ttl = max(0, Int(job.expiresAt.timeIntervalSince(now()).rounded(.up)))
        var request = HTTPClientRequest(url: subscription.endpointString)
        request.method = .POST
        request.headers.add(name: "TTL", value: String(ttl))
        request.headers.add(name: "Urgency", value: job.priority?.rawValue ?? configuration.urgency.rawValue)
        if let topic = job.collapseID { request.headers.add(name: "Topic", value: topic) }
        request.headers.add(name: "Content-Encoding", value: "aes128gcm")
        request.headers.add(name: "Content-Type", value: "application/octet-stream")
        request.headers.add(name: "Authorization", value: try vapid.authorization(origin: subscription.origin))
        request.body = .bytes(body)
        return request
    }

    /// Up to 200 characters of a response body, on one line, for `lastError`; the rest is not read.
    static func readExcerpt(of body: HTTPClientResponse.Body) async -> String {
        let limit = 200
        var bytes: [UInt8] = []
        do {
            for try await chunk in body {
                bytes += chunk.readableBytesView.prefix(limit - bytes.count)
                if bytes.count >= limit { break }
            }
        } catch {
            // A body cut short still explains the status as far as it got.
        }
        let text = String(decoding: bytes, as: UTF8.self)
        return String(text.map { $0.isNewline || $0 == "\t" ? " " : $0 }).trimmingCharacters(in: .whitespaces)
    }
}

extension TimeAmount {
    /// The same span as `duration`, to nanosecond precision.
    fileprivate init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
