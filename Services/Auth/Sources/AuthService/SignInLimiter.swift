import Foundation
import Logging
import RPCServer
import ServiceCore

/// The soft limits on guessing (OWASP ASVS V2.2): written once, over whichever ``AttemptCounters`` the backend has.
///
/// - A failed attempt counts for its (account, client address) pair and for its address; `maxFailures` failures of
///   one pair, or `maxFailures × addressFactor` of one address, get `-32029` until the window ends. The rightful
///   holder at another address is never refused because of someone else's failures.
/// - Each account also counts failures from every address; past `maxFailures × accountFactor` in a window, attempts
///   on it are slowed (1 s more per further `maxFailures`, up to `maxDelay`), never refused.
/// - Attempts are reserved before the password work and kept as failures unless they succeed, so concurrent guesses
///   cannot pass a limit together.
/// - Every unauthenticated call counts against `requestsPerMinute` of its address (`0` turns that off).
public struct SignInLimiter: Sendable {
    /// What is being signed into: a person's account or a service client.
    public enum AccountKind: String, Sendable {
        case user
        case client
    }

    /// A reserved attempt, to settle with ``succeeded(_:at:)`` or ``abandoned(_:at:)``.
    public struct Attempt: Sendable {
        let keys: [String]
    }

    /// Failures of one (account, address) pair within `window` before `-32029`; `0` turns failure limits off.
    public let maxFailures: Int
    /// Seconds a run of failures is remembered, counted from the first one.
    public let window: TimeInterval
    /// Unauthenticated calls one address may make per minute; `0` turns the rate limit off.
    public let requestsPerMinute: Int
    /// Password checks (bcrypt), successful or not, one address may cause per minute
    /// (`SECUREPUSH_BCRYPT_CHECKS_PER_ADDRESS`); `0` turns the budget off. Successes count too: a flood of correct
    /// sign-ins costs the same bcrypt time as a flood of guesses.
    public var passwordChecksPerMinute = 0
    /// One address may fail this many times `maxFailures`, over all accounts.
    public static let addressFactor = 5
    /// An account failing this many times `maxFailures`, over all addresses, is slowed down.
    public static let accountFactor = 5
    /// The longest an attempt is slowed.
    public static let maxDelay: Duration = .seconds(5)

    let counters: any AttemptCounters
    let logger: Logger
    let metrics: AuthMetrics
    let sleep: @Sendable (Duration) async throws -> Void

    /// - Parameter metrics: counts refusals (`securepush_auth_rate_limited_total`).
    /// - Parameter sleep: waits out a progressive delay (tests record instead).
    public init(
        counters: any AttemptCounters,
        maxFailures: Int,
        window: TimeInterval,
        requestsPerMinute: Int,
        logger: Logger,
        metrics: AuthMetrics = .disabled,
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
        self.counters = counters
        self.maxFailures = maxFailures
        self.window = window
        self.requestsPerMinute = requestsPerMinute
        self.logger = logger
        self.metrics = metrics
        self.sleep = sleep
    }

    /// Counts one unauthenticated call of `method` from `address`; throws `-32029` past the per-minute limit.
    public func admitRequest(method: String, from address: String?, at now: Date) async throws {
        guard requestsPerMinute > 0 else { return }
        let outcome = try await counters.reserve(
            Self.key("rate", Self.label(address)), limit: requestsPerMinute, window: 60, at: now)
        switch outcome {
        case .counted(let count):
            if count == requestsPerMinute {
                logger.security(
                    .init("auth.rate_limited"),
                    metadata: [
                        LogMetadataKey.clientAddress: "\(Self.label(address))", LogMetadataKey.rpcMethod: "\(method)",
                    ])
            }
        case .refused(let seconds):
            metrics.rateLimited.increment("requests")
            throw AuthError.rateLimited(retryAfterSeconds: seconds)
        }
    }

    /// Counts one password check for `address` before its bcrypt work; throws `-32029` past
    /// ``passwordChecksPerMinute``.
    public func admitPasswordCheck(from address: String?, at now: Date) async throws {
        guard passwordChecksPerMinute > 0 else { return }
        let origin = Self.label(address)
        switch try await counters.reserve(
            Self.key("bcrypt", origin), limit: passwordChecksPerMinute, window: 60, at: now)
        {
        case .counted(let count):
            if count == passwordChecksPerMinute {
                logger.security(
                    .init("auth.password_checks.limited"), metadata: [LogMetadataKey.clientAddress: "\(origin)"])
            }
        case .refused(let seconds):
            metrics.rateLimited.increment("password_checks")
            throw AuthError.rateLimited(retryAfterSeconds: seconds)
        }
    }

    /// Reserves a sign-in attempt on `account` from `address` before any password work; throws `-32029` when the
    /// pair or the address has failed too often, and waits first when the account is under a distributed attack.
    public func reserveAttempt(_ kind: AccountKind, account: String, from address: String?, at now: Date)
        async throws -> Attempt
    {
        guard maxFailures > 0 else { return Attempt(keys: []) }
        let origin = Self.label(address)
        let pair = Self.key("fail", kind.rawValue, account, origin)
        let byAddress = Self.key("fail-address", origin)
        let byAccount = Self.key("fail-account", kind.rawValue, account)
        var reserved: [String] = []
        do {
            for (key, limit, scope) in [
                (pair, maxFailures, "account_and_address"), (byAddress, maxFailures * Self.addressFactor, "address"),
            ] {
                switch try await counters.reserve(key, limit: limit, window: window, at: now) {
                case .counted(let count):
                    reserved.append(key)
                    if count == limit { throttled(kind, scope: scope, address: origin) }
                case .refused(let seconds):
                    metrics.rateLimited.increment("attempts")
                    throw AuthError.rateLimited(retryAfterSeconds: seconds)
                }
            }
            guard
                case .counted(let accountFailures) = try await counters.reserve(
                    byAccount, limit: .max, window: window, at: now)
            else { return Attempt(keys: reserved) }
            reserved.append(byAccount)
            if let delay = delay(afterAccountFailures: accountFailures) {
                if accountFailures == maxFailures * Self.accountFactor + 1 {
                    logger.security(
                        .init("auth.\(kind.eventPrefix).slowed"), metadata: [LogMetadataKey.clientAddress: "\(origin)"])
                }
                try await sleep(delay)
            }
            return Attempt(keys: reserved)
        } catch {
            await abandoned(Attempt(keys: reserved), at: now)
            throw error
        }
    }

    /// The attempt succeeded: its pair starts over, and it no longer counts for its address or account.
    public func succeeded(_ attempt: Attempt, at now: Date) async {
        guard let pair = attempt.keys.first else { return }
        try? await counters.reset(pair)
        for key in attempt.keys.dropFirst() { try? await counters.release(key, at: now) }
    }

    /// The attempt never reached a verdict (hashing busy, database error): it counts for nothing.
    public func abandoned(_ attempt: Attempt, at now: Date) async {
        for key in attempt.keys { try? await counters.release(key, at: now) }
    }

    /// Drops the counters whose window ended; returns how many.
    public func purgeExpired(at now: Date) async throws -> Int {
        try await counters.purge(expiredBefore: now)
    }

    /// The progressive delay once an account has failed `failures` times in the window from all addresses.
    func delay(afterAccountFailures failures: Int) -> Duration? {
        let ceiling = maxFailures * Self.accountFactor
        guard failures > ceiling else { return nil }
        let steps = (failures - ceiling + maxFailures - 1) / maxFailures
        return min(.seconds(steps), Self.maxDelay)
    }

    private func throttled(_ kind: AccountKind, scope: String, address: String) {
        logger.security(
            .init("auth.\(kind.eventPrefix).throttled"),
            metadata: ["auth.limit": "\(scope)", LogMetadataKey.clientAddress: "\(address)"])
    }

    /// The counter key: a hash, so memory and rows stay small however long the names sent are.
    static func key(_ parts: String...) -> String {
        OpaqueToken.storageHash(of: parts.map { "\($0.utf8.count):\($0)" }.joined())
    }

    /// The address as counted: IPv6 addresses by their /64 (one host usually holds a whole /64, so counting single
    /// addresses would give it 2^64 fresh counters); calls without an address (in process) share one bucket.
    public static func label(_ address: String?) -> String {
        AddressLabel.of(address)
    }
}

extension SignInLimiter.AccountKind {
    /// `login` or `client_token`: the method the security events are named after.
    var eventPrefix: String { self == .user ? "login" : "client_token" }
}
