import Foundation
import ServiceCore

/// When a failed delivery attempt is tried again: exponential backoff with full jitter, capped, honouring the
/// provider's hint, and a bound on attempts.
public struct RetryPolicy: Sendable {
    /// The backoff ceiling after the first failed attempt; it doubles with each further one.
    public var baseDelay: Duration
    /// The largest backoff ceiling (a provider's hint may ask for longer).
    public var maxDelay: Duration
    /// Attempts before a job that keeps failing ends `failed` (at least 1).
    public var maxAttempts: Int
    /// A number in 0…1 scaling each backoff (injectable, so tests are deterministic).
    public var randomFraction: @Sendable () -> Double

    /// - Parameters:
    ///   - baseDelay: the first backoff ceiling (1 s).
    ///   - maxDelay: the backoff cap (300 s).
    ///   - maxAttempts: attempts before giving up (10).
    ///   - randomFraction: the jitter source, uniform in 0…1 by default.
    public init(
        baseDelay: Duration = .seconds(1),
        maxDelay: Duration = .seconds(300),
        maxAttempts: Int = 10,
        randomFraction: @escaping @Sendable () -> Double = { Double.random(in: 0...1) }
    ) {
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.maxAttempts = max(1, maxAttempts)
        self.randomFraction = randomFraction
    }

    /// The wait after `attempts` failed attempts (1 for the first): a random point in
    /// `0…min(maxDelay, baseDelay · 2^(attempts − 1))` ("full jitter", so many devices failing together do not
    /// retry together), but never less than the provider's `hint`, and never more than `maxDelay` whatever the hint
    /// (one policy for every provider: a service asking for days is asked again at the cap).
    public func delay(afterAttempts attempts: Int, hint: Duration = .zero) -> Duration {
        let doublings = Double(min(max(attempts - 1, 0), 64))
        let ceiling = min(maxDelay.timeInterval, baseDelay.timeInterval * exp2(doublings))
        let fraction = min(max(randomFraction(), 0), 1)
        return min(max(.seconds(ceiling * fraction), hint), maxDelay)
    }

    /// What to record for an attempt's `outcome` when the job has now had `attempts` attempts: a retry gets its
    /// backoff, or becomes `failed` (keeping the reason) once `maxAttempts` is reached, or `expired` when the
    /// provider's hint, capped at `maxDelay`, reaches past `expiresAt` (the notification would be gone before the
    /// next attempt); anything else is kept.
    public func resolve(
        _ outcome: DeliveryOutcome, attempts: Int, expiresAt: Date? = nil, now: Date = Date()
    ) -> DeliveryOutcome {
        guard case .retry(let hint, let reason) = outcome else { return outcome }
        guard attempts < maxAttempts else { return .failed(reason: reason) }
        if let expiresAt, hint > .zero, now.adding(min(hint, maxDelay)) >= expiresAt {
            return .expired(reason: reason)
        }
        return .retry(after: delay(afterAttempts: attempts, hint: hint), reason: reason)
    }
}
