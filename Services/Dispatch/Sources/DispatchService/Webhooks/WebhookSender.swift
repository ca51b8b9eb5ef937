import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import ServiceCore
import ServiceLifecycle
import SharedModels
import Synchronization

/// Delivers recorded webhook events. Two loops run side by side: the event feed looks for new events every
/// `feedInterval`; the sender keeps up to `concurrency` attempts in flight (at most `perEndpoint` to one endpoint,
/// so one slow receiver cannot hold up the others), claiming due events under a lease (on PostgreSQL each event is
/// attempted by one replica at a time). Each is signed as Standard Webhooks says and POSTed with a timeout: a 2xx ends
/// it `delivered`; anything else is retried with exponential backoff until `SECUREPUSH_WEBHOOK_MAX_ATTEMPTS`, then
/// `failed`. An endpoint that has failed for `SECUREPUSH_WEBHOOK_DISABLE_AFTER` without a success is disabled (its
/// events are kept; `webhooks.test` enables it again). At least once: an attempt cut short (a killed replica) is made
/// again when its lease lapses (on SQLite at the next start), with the same `webhook-id`. What is not the receiver's
/// doing — shutting down, a secret this replica cannot open — counts no attempt and marks no endpoint failing.
final class WebhookSender: Service, Sendable {
    let repository: SQLWebhookRepository
    let feed: WebhookEventFeed
    let secretSealer: WebhookSecretSealer
    let configuration: WebhookConfiguration
    let owner: String
    let now: @Sendable () -> Date
    let logger: Logger
    let audit: AuditTrail?
    let metrics: WebhookMetrics
    let doorbell = WakeUpSignal()
    /// Attempts in flight from this replica, by endpoint.
    private let inFlight = Mutex<[String: Int]>([:])
    /// The fewest free slots worth a claim while attempts are in flight.
    static let claimBatch = 8

    /// - Parameters:
    ///   - secretSealer: opens the endpoints' secrets (the apps key).
    ///   - owner: this replica's id, the owner of its leases.
    ///   - audit: where a destination the address rules refuse is recorded (`config.refused`).
    init(
        repository: SQLWebhookRepository, feed: WebhookEventFeed,
        secretSealer: WebhookSecretSealer, configuration: WebhookConfiguration,
        owner: String, now: @escaping @Sendable () -> Date, logger: Logger, metrics: WebhookMetrics,
        audit: AuditTrail? = nil
    ) {
        self.audit = audit
        self.repository = repository
        self.feed = feed
        self.secretSealer = secretSealer
        self.configuration = configuration
        self.owner = owner
        self.now = now
        self.logger = logger
        self.metrics = metrics
    }

    func run() async throws {
        let clients = try WebhookHTTPClients(configuration: configuration, logger: logger)
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask { await self.feedLoop() }
                group.addTask { await self.sendLoop(clients) }
            }
        }
        await clients.shutdown()
    }

    /// Looks for new events every `feedInterval`, whatever the sender is doing.
    private func feedLoop() async {
        var failing = false
        while !Task.isCancelled {
            do {
                let recorded = try await feed.run()
                if recorded > 0 {
                    metrics.recorded.increment(by: recorded)
                    wake()
                }
                failing = false
            } catch {
                if Task.isCancelled { return }
                // Once per episode: the next look tries again.
                if !failing { logger.warning("webhooks.feed_failed", metadata: ["error": "\(error)"]) }
                failing = true
            }
            try? await Task.sleep(for: configuration.feedInterval)
        }
    }

    /// Keeps attempts in flight, each in its own task (a round never waits for its slowest attempt).
    private func sendLoop(_ clients: WebhookHTTPClients) async {
        await withDiscardingTaskGroup { group in
            var failing = false
            while !Task.isCancelled {
                do {
                    for (message, endpoint) in try await claim() {
                        group.addTask {
                            await self.attempt(message, to: endpoint, clients: clients)
                            self.finished(message.endpointID)
                        }
                    }
                    failing = false
                } catch {
                    if Task.isCancelled { break }
                    if !failing { logger.warning("webhooks.claim_failed", metadata: ["error": "\(error)"]) }
                    failing = true
                }
                // Claims go in batches: woken by attempts that ended, the loop claims again once a few slots are
                // free (or nothing is in flight, or the poll interval passed), not once per finished attempt.
                var waited: Duration = .zero
                while !Task.isCancelled, waited < configuration.pollInterval {
                    let started = ContinuousClock.now
                    _ = await doorbell.wait(upTo: configuration.pollInterval - waited)
                    waited += ContinuousClock.now - started
                    let (inFlight, room) = inFlight.withLock { counts in
                        let total = counts.values.reduce(0, +)
                        return (total, configuration.concurrency - total)
                    }
                    if inFlight == 0 || room >= Self.claimBatch { break }
                }
            }
        }
    }

    /// Wakes the sender before its next poll (an event was recorded, or an attempt ended).
    func wake() {
        doorbell.wake()
    }

    private func finished(_ endpointID: String) {
        inFlight.withLock { counts in
            counts[endpointID] = (counts[endpointID] ?? 1) - 1
            if counts[endpointID] == 0 { counts[endpointID] = nil }
        }
        wake()
    }

    /// Claims as many due events as there is room for, at most `perEndpoint` in flight to each endpoint (claimed ones
    /// beyond that are handed back at once, counting nothing); each with its endpoint, counted in flight.
    func claim() async throws -> [(ClaimedWebhookMessage, WebhookEndpointRecord?)] {
        let (room, busy) = inFlight.withLock { counts in
            (
                configuration.concurrency - counts.values.reduce(0, +),
                counts.filter { $0.value >= configuration.perEndpoint }.map(\.key)
            )
        }
        guard room > 0 else { return [] }
        let current = now()
        // The lease outlives an attempt (resolving the host, then the request's timeout) with room to record it.
        let lease = current.adding(WebhookURL.resolveTimeout + configuration.attemptTimeout + .seconds(30))
        let claimed = try await repository.claimDue(
            owner: owner, now: current, leaseUntil: lease, limit: room, excludingEndpoints: busy)
        var endpoints: [String: WebhookEndpointRecord?] = [:]
        var taken: [(ClaimedWebhookMessage, WebhookEndpointRecord?)] = []
        for message in claimed {
            if endpoints[message.endpointID] == nil {
                endpoints[message.endpointID] = .some(try await repository.endpoint(id: message.endpointID))
            }
            let admitted = inFlight.withLock { counts in
                guard (counts[message.endpointID] ?? 0) < configuration.perEndpoint else { return false }
                counts[message.endpointID, default: 0] += 1
                return true
            }
            if admitted {
                taken.append((message, endpoints[message.endpointID] ?? nil))
            } else {
                try await repository.release(message.sequence, owner: owner, until: current)
            }
        }
        return taken
    }

    /// Claims one round of due events and attempts them, waiting for all (tests); returns how many were claimed.
    @discardableResult
    func sendDue(clients: WebhookHTTPClients) async throws -> Int {
        let claimed = try await claim()
        await withTaskGroup(of: Void.self) { group in
            for (message, endpoint) in claimed {
                group.addTask {
                    await self.attempt(message, to: endpoint, clients: clients)
                    self.finished(message.endpointID)
                }
            }
        }
        return claimed.count
    }

    private func attempt(
        _ message: ClaimedWebhookMessage, to endpoint: WebhookEndpointRecord?, clients: WebhookHTTPClients
    ) async {
        do {
            guard let endpoint else {
                // Deleted meanwhile (its events went with it, unless this one was claimed first).
                try await repository.record(
                    message.sequence, owner: owner, status: "failed", nextAttempt: nil, error: "endpoint deleted",
                    now: now())
                return
            }
            let outcome = await post(message, to: endpoint, clients: clients)
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
        /// Not the receiver's doing: the attempt is made again after the wait, counting nothing (this replica cannot
        /// open the secret: an operator's fault; or it is shutting down: at once, by whoever runs next).
        case notAttempted(reason: String, retryAfter: Duration)
    }

    func post(_ message: ClaimedWebhookMessage, to endpoint: WebhookEndpointRecord, clients: WebhookHTTPClients)
        async -> Outcome
    {
        let secrets: [WebhookSecret]
        do {
            secrets = try secretSealer.signingSecrets(of: endpoint, now: now())
        } catch {
            logger.error("webhooks.secret_unusable", metadata: ["webhook.id": "\(endpoint.id)", "error": "\(error)"])
            return .notAttempted(reason: "the endpoint's secret does not open: \(error)", retryAfter: .seconds(60))
        }
        let url: WebhookURL
        let client: HTTPClient
        do {
            url = try WebhookURL(endpoint.url, configuration: configuration)
            let destination = try await url.destination(configuration: configuration)
            if case .refused(let refusal) = destination {
                logger.security(
                    SecurityEvent("webhooks.endpoint.refused"),
                    metadata: ["webhook.id": "\(endpoint.id)", "webhook.host": "\(url.host)"])
                recordRefusal(endpoint.id, reason: "\(refusal)")
                return .refused(refusal)
            }
            client = try clients.client(host: url.host, destination: destination)
        } catch let error as DispatchError {
            recordRefusal(endpoint.id, reason: "\(error)")
            return .refused("\(error)")
        } catch {
            if Task.isCancelled { return .notAttempted(reason: "shutting down", retryAfter: .zero) }
            return .retry("cannot resolve the host: \(error)")
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
            let response = try await client.execute(request, timeout: .init(configuration.attemptTimeout))
            // The body is not needed: read at most a little of it, so the connection can be reused.
            _ = try? await response.body.collect(upTo: 4_096)
            let status = Int(response.status.code)
            return (200..<300).contains(status) ? .delivered : .retry("HTTP \(status)")
        } catch {
            if Task.isCancelled { return .notAttempted(reason: "shutting down", retryAfter: .zero) }
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
            // Only an endpoint seen failing (or disabled) when its event was claimed has anything to clear.
            if endpoint.failingSince != nil || endpoint.disabledAt != nil {
                try await repository.markSucceeded(id: endpoint.id)
            }
            logger.debug("webhooks.delivered", metadata: metadata)
        case .notAttempted(_, let retryAfter):
            try await repository.release(message.sequence, owner: owner, until: current.adding(retryAfter))
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
            // Failures are sustained only when none is further apart than the longest backoff (twice over): an
            // endpoint that failed once last week and once now has not been failing all week.
            if let failingSince = try await repository.markFailing(
                id: endpoint.id, now: current, continuousWithin: configuration.maxBackoff + configuration.maxBackoff),
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

    /// An endpoint the address rules refuse at send time (the operator narrowed `SECUREPUSH_WEBHOOK_ALLOWED_HOSTS`, or
    /// its host now resolves inside): a configuration refusal in the audit trail.
    private func recordRefusal(_ webhookID: String, reason: String) {
        audit?.record(
            "config.refused",
            ["setting": .text("webhook destination"), "webhook": .text(webhookID), "reason": .text(reason)])
    }
}
