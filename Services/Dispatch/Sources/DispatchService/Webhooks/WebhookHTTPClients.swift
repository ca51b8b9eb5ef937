import AsyncHTTPClient
import Logging
import NIOSSL
import Synchronization

/// The HTTP clients webhook attempts go through: one for hosts connected to as resolved (listed hosts, address
/// literals), and one per (host, checked address) for the others, each pinned to its address with
/// `dnsOverride` (certificates are still checked against the host's name). At most ``maxPinned`` pinned clients are
/// kept; the least recently used one is shut down to make room.
final class WebhookHTTPClients: Sendable {
    /// Most pinned clients kept open.
    static let maxPinned = 32

    private let configuration: WebhookConfiguration
    private let logger: Logger
    private let shared: HTTPClient
    private let pinned = Mutex<(clients: [String: HTTPClient], order: [String], closed: Bool)>(([:], [], false))

    init(configuration: WebhookConfiguration, logger: Logger) throws {
        self.configuration = configuration
        self.logger = logger
        self.shared = try Self.make(configuration, dnsOverride: [:], logger: logger)
    }

    /// The client for an attempt to `host` at `destination`.
    func client(host: String, destination: WebhookURL.Destination) throws -> HTTPClient {
        guard case .pinned(let address) = destination else { return shared }
        let key = host + " " + address
        if pinned.withLock({ $0.closed }) { throw CancellationError() }
        if let existing = pinned.withLock({ state -> HTTPClient? in
            guard let client = state.clients[key] else { return nil }
            state.order.removeAll { $0 == key }
            state.order.append(key)
            return client
        }) {
            return existing
        }
        let made = try Self.make(configuration, dnsOverride: [host: address], logger: logger)
        let (client, evicted) = pinned.withLock { state -> (HTTPClient, [HTTPClient]) in
            if let raced = state.clients[key] { return (raced, [made]) }
            state.clients[key] = made
            state.order.append(key)
            var evicted: [HTTPClient] = []
            while state.order.count > Self.maxPinned {
                let oldest = state.order.removeFirst()
                if let client = state.clients.removeValue(forKey: oldest) { evicted.append(client) }
            }
            return (made, evicted)
        }
        for old in evicted { old.shutdown { _ in } }  // in-flight requests on it finish first
        return client
    }

    /// Shuts every client down (once, when the sender stops).
    func shutdown() async {
        let clients = pinned.withLock { state -> [HTTPClient] in
            state.closed = true
            defer {
                state.clients = [:]
                state.order = []
            }
            return Array(state.clients.values)
        }
        for client in clients + [shared] {
            do {
                try await client.shutdown()
            } catch {
                logger.debug("webhooks.shutdown_failed", metadata: ["error": "\(error)"])
            }
        }
    }

    private static func make(_ configuration: WebhookConfiguration, dnsOverride: [String: String], logger: Logger)
        throws -> HTTPClient
    {
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
        clientConfiguration.dnsOverride = dnsOverride
        return HTTPClient(
            eventLoopGroupProvider: .singleton, configuration: clientConfiguration, backgroundActivityLogger: logger)
    }
}
