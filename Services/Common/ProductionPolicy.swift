import Foundation
import RPCServer

/// What `SECUREPUSH_ENV=production` refuses to start with. Each check throws one `ConfigurationError` naming the
/// variable and saying what to do; docs/security.md lists them all.
public enum ProductionPolicy {
    /// Shortest secret accepted in production, in UTF-8 bytes.
    public static let minimumSecretBytes = 32

    /// Secrets published in our own files (compose's defaults, examples): never acceptable in production.
    public static let developmentSecrets: Set<String> = [
        "development-backend-secret-change-me",
        "development-dispatch-secret-change-me",
    ]

    /// Refusals the operator may accept by naming them in `SECUREPUSH_PRODUCTION_ALLOW`.
    public enum Allowance: String, Sendable, CaseIterable {
        /// `GET /metrics` on the public service port (e.g. behind a proxy that blocks the path).
        case publicMetrics = "public-metrics"
        /// auth's sign-in limits turned off (`SECUREPUSH_AUTH_RATE_LIMIT=0`, `SECUREPUSH_LOGIN_MAX_FAILURES=0`), e.g.
        /// where a gateway in front enforces its own.
        case noAuthLimits = "no-auth-limits"
    }

    /// Trusting every address as a proxy lets any client choose the address it is counted as.
    public static func checkTrustedProxies(_ proxies: [IPNetwork]) throws(ConfigurationError) {
        guard let everything = proxies.first(where: { $0.prefixLength == 0 }) else { return }
        throw ConfigurationError(
            "SECUREPUSH_TRUSTED_PROXIES contains \(everything) in production: every client could then name its own "
                + "address in a forwarding header and escape the per-address limits; list your proxies' addresses")
    }

    /// `GET /metrics` must not be served on a public service port: it is unauthenticated and tells anyone the
    /// service's load, users and errors.
    public static func checkMetricsExposure(
        _ server: RPCServerConfiguration, allowances: Set<Allowance>
    ) throws(ConfigurationError) {
        guard server.metricsEnabled, server.metricsPort == nil, !isLoopback(host: server.host),
            !allowances.contains(.publicMetrics)
        else { return }
        throw ConfigurationError(
            "SECUREPUSH_METRICS_PORT is unset, so GET /metrics would be served unauthenticated on the public service "
                + "port (\(server.host):\(server.port)) in production: set it to a private port, or "
                + "SECUREPUSH_METRICS=off, or SECUREPUSH_PRODUCTION_ALLOW=public-metrics if a proxy in front blocks "
                + "/metrics")
    }

    /// A cleartext listener must be on a loopback address (behind a TLS-terminating proxy on the same host).
    public static func checkListener(_ server: RPCServerConfiguration) throws(ConfigurationError) {
        guard server.tls == nil, !isLoopback(host: server.host) else { return }
        throw ConfigurationError(
            "SECUREPUSH_HOST=\(server.host) would serve cleartext on a non-loopback address in production: set "
                + "SECUREPUSH_TLS_CERT_FILE and SECUREPUSH_TLS_KEY_FILE, or bind 127.0.0.1 behind a TLS proxy")
    }

    /// A peer (auth, notification-store) must be reached over `https` unless it is on this host.
    public static func checkPeerURL(_ url: String, variable: String) throws(ConfigurationError) {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased() else {
            throw ConfigurationError("\(variable) must be an http:// or https:// URL, got '\(url)'")
        }
        guard scheme == "http" else { return }
        let host = components.host ?? ""
        guard !isLoopback(host: host) else { return }
        throw ConfigurationError(
            "\(variable)=\(url) is cleartext to another host in production (anyone on the path could read tokens "
                + "or swap auth's keys): use https:// and SECUREPUSH_CA_FILE for a private CA")
    }

    /// A secret must be long and must not be one of our published development defaults.
    public static func checkSecret(_ secret: String, variable: String) throws(ConfigurationError) {
        if developmentSecrets.contains(secret) || secret.lowercased().contains("change-me") {
            throw ConfigurationError(
                "\(variable) is a published development default: generate one, e.g. `openssl rand -base64 32`")
        }
        guard secret.utf8.count >= minimumSecretBytes else {
            throw ConfigurationError(
                "\(variable) must be at least \(minimumSecretBytes) bytes in production, got \(secret.utf8.count): "
                    + "generate one, e.g. `openssl rand -base64 32`")
        }
    }

    /// PostgreSQL on another host must be reached with `sslmode=require` (or stricter).
    public static func checkDatabase(_ url: PostgresURL) throws(ConfigurationError) {
        guard let host = url.host, !isLoopback(host: host), !url.requiresTLS else { return }
        throw ConfigurationError(
            "SECUREPUSH_DATABASE_URL reaches \(host) with sslmode=\(url.sslMode) in production: use sslmode=require "
                + "(or verify-full) so credentials and payloads are encrypted in transit")
    }

    /// Whether `host` names this machine only: `localhost`, 127.0.0.0/8 or ::1.
    public static func isLoopback(host: String) -> Bool {
        let host = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if host == "localhost" || host == "::1" || host == "0:0:0:0:0:0:0:1" { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }
}
