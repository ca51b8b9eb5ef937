import Foundation
import ServiceCore

/// How push-dispatch delivers webhooks: the `SECUREPUSH_WEBHOOK_*` settings, and the pacing tests shorten.
public struct WebhookConfiguration: Sendable {
    /// Hosts (and their subdomains) webhook URLs may name (`SECUREPUSH_WEBHOOK_ALLOWED_HOSTS`); `nil`: any public
    /// host (development only).
    public var allowedHosts: [String]?
    /// Whether the deployment runs in production: `http://` URLs are refused even for allow-listed hosts.
    public var isProduction = false
    /// How long an old secret keeps signing after a rotation (`SECUREPUSH_WEBHOOK_SECRET_OVERLAP`).
    public var secretOverlap: Duration = .seconds(SettingCatalog.webhookSecretOverlap.defaultValue)
    /// How long events are kept for `webhooks.replay` (`SECUREPUSH_WEBHOOK_RETENTION`).
    public var retention: Duration = .seconds(SettingCatalog.webhookRetention.defaultValue)
    /// Attempts per event before it is given up (`SECUREPUSH_WEBHOOK_MAX_ATTEMPTS`).
    public var maxAttempts = SettingCatalog.webhookMaxAttempts.defaultValue
    /// Failing this long without a success disables an endpoint (`SECUREPUSH_WEBHOOK_DISABLE_AFTER`).
    public var disableAfter: Duration = .seconds(SettingCatalog.webhookDisableAfter.defaultValue)
    /// The longest one attempt may take, connection included.
    public var attemptTimeout: Duration = .seconds(10)
    /// The wait after the first failed attempt; it doubles after each further one, up to ``maxBackoff``.
    public var firstBackoff: Duration = .seconds(5)
    /// The longest wait between two attempts.
    public var maxBackoff: Duration = .seconds(3_600)
    /// How often the sender looks for due events when nothing wakes it (a recorded event or a finished attempt does).
    public var pollInterval: Duration = .milliseconds(500)
    /// How often the event feed looks for new events.
    public var feedInterval: Duration = .seconds(1)
    /// How far back each look at the delivery, device and send tables reaches again: a change whose transaction
    /// committed later than its timestamp (a slow write) is still seen. Events are recorded once however often seen.
    public var lookback: Duration = .seconds(5)
    /// Most events in flight at once (from one replica).
    public var concurrency = 32
    /// Most events in flight to one endpoint (from one replica): a slow receiver holds at most this many.
    public var perEndpoint = 8
    /// The CA certificates (PEM) to trust for `https://` webhooks beside the system's (tests, private CAs).
    public var caFile: String?

    public init() {}

    /// The `SECUREPUSH_WEBHOOK_*` settings; production requires `SECUREPUSH_WEBHOOK_ALLOWED_HOSTS`.
    public init(environment: ServiceEnvironment) throws {
        isProduction = environment.isProduction
        secretOverlap = .seconds(try environment.int(SettingCatalog.webhookSecretOverlap))
        retention = .seconds(try environment.int(SettingCatalog.webhookRetention))
        maxAttempts = try environment.int(SettingCatalog.webhookMaxAttempts)
        disableAfter = .seconds(try environment.int(SettingCatalog.webhookDisableAfter))
        caFile = environment.string("SECUREPUSH_CA_FILE")
        if let list = environment.string(SettingCatalog.webhookAllowedHosts) {
            let hosts = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard !hosts.isEmpty, !hosts.contains(where: \.isEmpty) else {
                throw ConfigurationError(
                    "SECUREPUSH_WEBHOOK_ALLOWED_HOSTS must list hosts separated by commas, none empty")
            }
            allowedHosts = hosts
        } else if isProduction {
            // Checked when a webhook is created or sent, not at start: a deployment without webhooks needs no list.
            allowedHosts = []
        }
    }

    /// Whether the operator listed `host` (or a parent domain).
    func isListed(host: String) -> Bool {
        allowedHosts?.contains { host == $0 || host.hasSuffix("." + $0) } ?? false
    }

    /// The wait before attempt `attempts + 1`, after `attempts` failed ones.
    func backoff(afterAttempts attempts: Int) -> Duration {
        let exponent = min(max(attempts - 1, 0), 20)
        let seconds = firstBackoff.timeInterval * Double(1 << exponent)
        return min(.milliseconds(Int64(seconds * 1_000)), maxBackoff)
    }
}
