import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOSSL
import ServiceCore
import ServiceLifecycle
import SharedModels

/// Delivers recorded webhook events: every `pollInterval` it claims the due ones under a lease (on PostgreSQL each
/// event is attempted by one replica at a time), signs each as Standard Webhooks says and POSTs it with a timeout.
/// A 2xx ends the event `delivered`; anything else is retried with exponential backoff until
/// `SECUREPUSH_WEBHOOK_MAX_ATTEMPTS`, then `failed`. An endpoint that has failed for `SECUREPUSH_WEBHOOK_DISABLE_AFTER`
/// without a success is disabled (its events wait; `webhooks.test` enables it again). At least once: an event whose
/// attempt was cut short (a killed replica) is claimed again when its lease lapses, with the same `webhook-id`.
final class WebhookSender: Service, Sendable {
    let repository: SQLWebhookRepository
    let feed: WebhookEventFeed
    let secretSealer: WebhookSecretSealer
    let configuration: WebhookConfiguration
    let owner: String
    let now: @Sendable () -> Date
    let logger: Logger
    let metrics: WebhookMetrics
    let doorbell = WakeUpSignal()

    /// - Parameters:
    ///   - secretSealer: opens the endpoints' secrets (the apps key).
    ///   - owner: this replica's id, the owner of its leases.
    init(
        repository: SQLWebhookRepository, feed: WebhookEventFeed,
        secretSealer: WebhookSecretSealer, configuration: WebhookConfiguration,
        owner: String, now: @escaping @Sendable () -> Date, logger: Logger, metrics: WebhookMetrics
    ) {
        self.repository = repository
        self.feed = feed
        self.secretSealer = secretSealer
        self.configuration = configuration
        self.owner = owner
        self.now = now
        self.logger = logger
        self.metrics = metrics
    }

    /// The HTTP client attempts are made with (made when the sender runs, shut down when it stops).
    func makeHTTPClient() throws -> HTTPClient {
        var tls = TLSConfiguration.makeClientConfiguration()
        if let caFile = configuration.caFile {
            tls.additionalTrustRoots = [.file(caFile)]
        }
        var clientConfiguration = HTTPClient.Configuration(
            tlsConfiguration: tls,
            // A receiver answers; following a redirect would send the event somewhere no one registered.
            redirectConfiguration: .disallow,
            timeout: .init(connect: .init(configuration.attemptTimeout))
        )
        clientConfiguration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(
            eventLoopGroupProvider: .singleton, configuration: clientConfiguration, backgroundActivityLogger: logger)
    }

    func run() async throws {
        let httpClient = try makeHTTPClient()
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    let recorded = try await self.feed.run()
                    if recorded > 0 { self.metrics.recorded.increment(by: recorded) }
                    while try await self.sendDue(using: httpClient) > 0, !Task.isCancelled {}
                } catch is CancellationError {
                    break
                } catch {
                    // Shutting down cancels what was in flight: not a failure to report.
                    if Task.isCancelled { break }
                    self.logger.warning("webhooks.failed", metadata: ["error": "\(error)"])
                }
                _ = await self.doorbell.wait(upTo: self.configuration.pollInterval)
            }
        }
        do {
            try await httpClient.shutdown()
        } catch {
            logger.debug("webhooks.shutdown_failed", metadata: ["error": "\(error)"])
        }
    }

    /// Wakes the sender before its next poll (an event was just recorded on this replica).
    func wake() {
        doorbell.wake()
    }

    /// Claims and attempts one round of due events (at most ``WebhookConfiguration/concurrency`` at once); returns
    /// how many were claimed.
    @discardableResult
    func sendDue(using httpClient: HTTPClient) async throws -> Int {
        let current = now()
        // The lease outlives an attempt (its timeout) with room to record the outcome.
        let lease = current.adding(configuration.attemptTimeout + .seconds(30))
        let claimed = try await repository.claimDue(
            owner: owner, now: current, leaseUntil: lease, limit: configuration.concurrency)
        guard !claimed.isEmpty else { return 0 }
        var endpoints: [String: WebhookEndpointRecord?] = [:]
        for id in Set(claimed.map(\.endpointID)) {
            endpoints[id] = try await repository.endpoint(id: id)
        }
        await withTaskGroup(of: Void.self) { group in
            for message in claimed {
                let endpoint = endpoints[message.endpointID] ?? nil
                group.addTask { await self.attempt(message, to: endpoint, using: httpClient) }
            }
        }
        return claimed.count
    }

    private func attempt(
        _ message: ClaimedWebhookMessage, to endpoint: WebhookEndpointRecord?, using httpClient: HTTPClient
    ) async {
        do {
            guard let endpoint else {
                // Deleted meanwhile (its events went with it, unless this one was claimed first).
                try await repository.record(
                    message.sequence, owner: owner, status: "failed", nextAttempt: nil, error: "endpoint deleted",
                    now: now())
                return
            }
            guard endpoint.disabledAt == nil || message.type == .webhookTest else {
                try await repository.release(
                    message.sequence, owner: owner, until: now().adding(configuration.maxBackoff))
                return
            }
            let outcome = await post(message, to: endpoint, using: httpClient)
            try await record(outcome, of: message, endpoint: endpoint)
        } catch {
            logger.warning(
                "webhooks.record_failed",
                metadata: [
                    "webhook.id": "\(message.endpointID)", "webhook.event_id": "\(message.eventID)",
                    "error": "\(error)",
                ])
        }
    }

    /// What one attempt came to.
    enum Outcome: Sendable, Equatable {
        case delivered
        /// Worth another attempt (a 5xx, 429, timeout, connection failure, any other non-2xx).
        case retry(String)
        /// Never to be attempted again (the address rules refuse the endpoint).
        case refused(String)
    }

    func post(_ message: ClaimedWebhookMessage, to endpoint: WebhookEndpointRecord, using httpClient: HTTPClient)
        async -> Outcome
    {
        let url: WebhookURL
        do {
            url = try WebhookURL(endpoint.url, configuration: configuration)
            if let refusal = try await url.refusal(configuration: configuration) {
                logger.security(
                    SecurityEvent("webhooks.endpoint.refused"),
                    metadata: ["webhook.id": "\(endpoint.id)", "webhook.host": "\(url.host)"])
                return .refused(refusal)
            }
        } catch let error as DispatchError {
            return .refused("\(error)")
        } catch {
            return .retry("cannot resolve the host: \(error)")
        }
        let secrets: [WebhookSecret]
        do {
            secrets = try secretSealer.signingSecrets(of: endpoint, now: now())
        } catch {
            logger.error("webhooks.secret_unusable", metadata: ["webhook.id": "\(endpoint.id)", "error": "\(error)"])
            return .retry("the endpoint's secret does not open: \(error)")
        }
        let timestamp = Int64(now().timeIntervalSince1970)
        let body = Data(message.body.utf8)
        var request = HTTPClientRequest(url: url.url.absoluteString)
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/json")
        request.headers.add(name: "user-agent", value: "SecurePush-Webhooks/1")
        request.headers.add(name: "webhook-id", value: message.eventID)
        request.headers.add(name: "webhook-timestamp", value: "\(timestamp)")
        request.headers.add(
            name: "webhook-signature",
            value: WebhookSignature.header(id: message.eventID, timestamp: timestamp, body: body, secrets: secrets))
        request.body = .bytes(ByteBuffer(data: body))
        let started = ContinuousClock.now
        defer { metrics.attemptDuration.record(duration: ContinuousClock.now - started) }
        do {
            let response = try await httpClient.execute(request, timeout: .init(configuration.attemptTimeout))
            // The body is not needed: read at most a little of it, so the connection can be reused.
            _ = try? await response.body.collect(upTo: 4_096)
            let status = Int(response.status.code)
            return (200..<300).contains(status) ? .delivered : .retry("HTTP \(status)")
        } catch {
            return .retry("unreachable: \(error)")
        }
    }

    private func record(_ outcome: Outcome, of message: ClaimedWebhookMessage, endpoint: WebhookEndpointRecord)
        async throws
    {
        let current = now()
        let metadata: Logger.Metadata = [
            "webhook.id": "\(endpoint.id)", "webhook.event_id": "\(message.eventID)",
            "webhook.event_type": "\(message.type)", "webhook.attempt": "\(message.attempts + 1)",
        ]
        switch outcome {
        case .delivered:
            metrics.delivered.increment()
            try await repository.record(
                message.sequence, owner: owner, status: "delivered", nextAttempt: nil, error: nil, now: current)
            try await repository.markSucceeded(id: endpoint.id)
            logger.debug("webhooks.delivered", metadata: metadata)
        case .retry(let reason), .refused(let reason):
            let attempts = message.attempts + 1
            let givenUp: Bool
            if case .refused = outcome { givenUp = true } else { givenUp = attempts >= configuration.maxAttempts }
            (givenUp ? metrics.failed : metrics.retried).increment()
            try await repository.record(
                message.sequence, owner: owner, status: givenUp ? "failed" : "pending",
                nextAttempt: givenUp ? nil : current.adding(configuration.backoff(afterAttempts: attempts)),
                error: String(reason.prefix(500)), now: current)
            logger.info(
                givenUp ? "webhooks.given_up" : "webhooks.retry",
                metadata: metadata.merging(["reason": "\(reason.prefix(200))"]) { $1 })
            if let failingSince = try await repository.markFailing(id: endpoint.id, now: current),
                current.timeIntervalSince(failingSince) >= configuration.disableAfter.timeInterval,
                try await repository.disable(id: endpoint.id, now: current)
            {
                metrics.disabled.increment()
                logger.warning(
                    "webhooks.endpoint.disabled",
                    metadata: [
                        "webhook.id": "\(endpoint.id)", "webhook.client_id": "\(endpoint.clientID)",
                        "webhook.failing_since": "\(failingSince)",
                    ])
            }
        }
    }
}
