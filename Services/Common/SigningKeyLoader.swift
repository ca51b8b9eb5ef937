import Logging
import ServiceLifecycle

/// Loads auth's signing keys into an `AccessTokenVerifier` in the background, so a service that verifies tokens
/// (notification-store, push-dispatch) can start while auth is still down.
///
/// Retries with exponential backoff until the first load succeeds, then refreshes every `refreshInterval`
/// (so removed keys stop being trusted). Runs until graceful shutdown: a service that returned early
/// would stop the whole application.
public struct SigningKeyLoader: Service {
    let verifier: AccessTokenVerifier
    let initialRetryDelay: Duration
    let maxRetryDelay: Duration
    let refreshInterval: Duration
    let logger: Logger

    public init(
        verifier: AccessTokenVerifier,
        initialRetryDelay: Duration = .milliseconds(500),
        maxRetryDelay: Duration = .seconds(30),
        refreshInterval: Duration = .seconds(600),
        logger: Logger
    ) {
        self.verifier = verifier
        self.initialRetryDelay = initialRetryDelay
        self.maxRetryDelay = maxRetryDelay
        self.refreshInterval = refreshInterval
        self.logger = logger
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            var retryDelay = initialRetryDelay
            while !Task.isCancelled {
                let delay: Duration
                if await verifier.refresh() {
                    retryDelay = initialRetryDelay
                    delay = refreshInterval
                } else {
                    delay = retryDelay
                    retryDelay = min(retryDelay * 2, maxRetryDelay)
                }
                do {
                    try await Task.sleep(for: delay)
                } catch {
                    return
                }
            }
        }
    }
}
