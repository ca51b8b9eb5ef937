import CoreMetrics
import ServiceCore

/// What auth counts: sign-ins and client tokens by outcome, rate-limit refusals, refresh-token reuse, and the password
/// hashing (bcrypt) in progress and waiting.
public struct AuthMetrics: Sendable {
    /// `securepush_auth_logins_total{outcome}`: every `auth.login`.
    let logins: CounterFamily
    /// `securepush_auth_client_tokens_total{outcome}`: every `auth.clientToken`.
    let clientTokens: CounterFamily
    /// `securepush_auth_rate_limited_total{limit}`: `-32029` refusals, `limit` = `requests` (calls per minute from
    /// one address) or `attempts` (failed sign-ins).
    let rateLimited: CounterFamily
    /// `securepush_auth_refresh_reuse_total`: spent refresh tokens presented again (their family is revoked).
    let refreshReuse: Counter
    /// `securepush_auth_password_hashes_running`: bcrypt checks running now (at most one per core).
    let hashesRunning: Meter
    /// `securepush_auth_password_hashes_queued`: bcrypt checks waiting for a core (bounded by
    /// `SECUREPUSH_BCRYPT_QUEUE`; a full queue refuses sign-ins with `-32029`).
    let hashesQueued: Meter

    public init(factory: any MetricsFactory) {
        logins = CounterFamily(
            label: "securepush_auth_logins_total", dimension: "outcome", values: MetricOutcome.all, factory: factory)
        clientTokens = CounterFamily(
            label: "securepush_auth_client_tokens_total", dimension: "outcome", values: MetricOutcome.all,
            factory: factory)
        rateLimited = CounterFamily(
            label: "securepush_auth_rate_limited_total", dimension: "limit",
            values: ["requests", "attempts", "password_checks"],
            factory: factory)
        refreshReuse = Counter(label: "securepush_auth_refresh_reuse_total", factory: factory)
        hashesRunning = Meter(label: "securepush_auth_password_hashes_running", factory: factory)
        hashesQueued = Meter(label: "securepush_auth_password_hashes_queued", factory: factory)
    }

    /// Records nothing.
    public static var disabled: AuthMetrics { AuthMetrics(factory: NOOPMetricsHandler.instance) }
}
