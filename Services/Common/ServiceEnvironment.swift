import Foundation
import RPCServer

/// Typed access to the `SECUREPUSH_*` environment variables every service shares (documented in README.md).
public struct ServiceEnvironment: Sendable {
    /// The raw variables.
    public var values: [String: String]

    public init(_ values: [String: String] = ProcessInfo.processInfo.environment) {
        self.values = values
    }

    /// A variable's value; empty strings count as unset.
    public func string(_ name: String) -> String? {
        guard let value = values[name], !value.isEmpty else { return nil }
        return value
    }

    /// An integer variable, or `defaultValue` when unset; throws when set but not an integer in `range`.
    public func int(_ name: String, default defaultValue: Int, in range: ClosedRange<Int> = Int.min...Int.max) throws
        -> Int
    {
        guard let raw = string(name) else { return defaultValue }
        guard let value = Int(raw), range.contains(value) else {
            throw ConfigurationError(
                "\(name) must be an integer in \(range.lowerBound)...\(range.upperBound), got '\(raw)'")
        }
        return value
    }

    /// A declared whole-number setting: its default when unset; throws, naming it, when set but not in its range.
    public func int(_ setting: IntegerSetting) throws -> Int {
        try int(setting.setting.name, default: setting.defaultValue, in: setting.range)
    }

    /// A declared setting in whole seconds, as ``int(_:)-(IntegerSetting)``.
    public func seconds(_ setting: IntegerSetting) throws -> Duration {
        .seconds(try int(setting))
    }

    /// `SECUREPUSH_ENV=production` turns unsafe defaults into refusals. (Any value other than `development` or
    /// `production` is refused at start by ``checkMode()``, so a typo never silently means development.)
    public var isProduction: Bool { string("SECUREPUSH_ENV")?.lowercased() == "production" }

    /// Throws unless `SECUREPUSH_ENV` is unset, `development` or `production` (any case).
    public func checkMode() throws {
        _ = try choice(SettingCatalog.mode)
    }

    /// `SECUREPUSH_PRODUCTION_ALLOW`: comma-separated exceptions to production refusals the operator accepts
    /// (`public-metrics`, `no-auth-limits`); anything else throws naming the variable.
    public func productionAllowances() throws -> Set<ProductionPolicy.Allowance> {
        guard let raw = string("SECUREPUSH_PRODUCTION_ALLOW") else { return [] }
        return Set(
            try raw.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.map {
                entry in
                guard let allowance = ProductionPolicy.Allowance(rawValue: entry.lowercased()) else {
                    let known = ProductionPolicy.Allowance.allCases.map(\.rawValue).joined(separator: ", ")
                    throw ConfigurationError(
                        "SECUREPUSH_PRODUCTION_ALLOW: '\(entry.prefix(64))' is not one of \(known)")
                }
                return allowance
            })
    }

    /// The data directory for SQLite files: ``SettingCatalog/dataDirectory``.
    public var dataDirectory: String { string(SettingCatalog.dataDirectory)! }

    /// The listening configuration: `SECUREPUSH_HOST`, `port` (the service's port setting),
    /// `SECUREPUSH_TLS_CERT_FILE` + `SECUREPUSH_TLS_KEY_FILE`, `SECUREPUSH_MAX_BODY_BYTES`, `SECUREPUSH_MAX_BATCH`,
    /// `SECUREPUSH_IDLE_TIMEOUT`, `SECUREPUSH_HANDSHAKE_TIMEOUT`, `SECUREPUSH_SHUTDOWN_TIMEOUT`,
    /// `SECUREPUSH_REQUEST_TIMEOUT`, `SECUREPUSH_MAX_CONNECTION_BUFFER_BYTES`, `SECUREPUSH_MAX_CONNECTIONS`,
    /// `SECUREPUSH_MAX_CONNECTIONS_PER_ADDRESS`, `SECUREPUSH_STREAMING_HEADER_TABLE_BYTES`,
    /// `SECUREPUSH_TRUSTED_PROXIES`, `SECUREPUSH_FORWARDED_HEADER`, `SECUREPUSH_METRICS_PORT`, `SECUREPUSH_METRICS`;
    /// `SECUREPUSH_ENV` is checked too.
    public func server(port: IntegerSetting) throws -> RPCServerConfiguration {
        try checkMode()
        let certificate = string("SECUREPUSH_TLS_CERT_FILE")
        let key = string("SECUREPUSH_TLS_KEY_FILE")
        guard (certificate == nil) == (key == nil) else {
            throw ConfigurationError("SECUREPUSH_TLS_CERT_FILE and SECUREPUSH_TLS_KEY_FILE must be set together")
        }
        var configuration = RPCServerConfiguration(
            host: string(SettingCatalog.host)!,
            port: try int(port),
            tls: certificate.map { .init(certificateChainPath: $0, privateKeyPath: key!) },
            maxBodyBytes: try int(SettingCatalog.maxBodyBytes),
            maxBatchLength: try int(SettingCatalog.maxBatch),
            idleTimeout: try seconds(SettingCatalog.idleTimeout),
            handshakeTimeout: try seconds(SettingCatalog.handshakeTimeout),
            shutdownTimeout: try seconds(SettingCatalog.shutdownTimeout)
        )
        let body = configuration.maxBodyBytes
        configuration.requestTimeout = try seconds(SettingCatalog.requestTimeout)
        // At least one body: a request of the largest size must be able to arrive whole.
        configuration.maxConnectionBufferBytes = try int(
            "SECUREPUSH_MAX_CONNECTION_BUFFER_BYTES", default: 2 * body, in: body...(1 << 30))
        configuration.maxConnections = try int(SettingCatalog.maxConnections)
        configuration.maxConnectionsPerAddress = try int(SettingCatalog.maxConnectionsPerAddress)
        configuration.streamingHeaderTableBytes = try int(SettingCatalog.streamingHeaderTableBytes)
        configuration.trustedProxies = try trustedProxies()
        configuration.forwardedHeader = try forwardedHeader()
        configuration.metricsPort = try metricsPort(servicePort: configuration.port)
        configuration.metricsEnabled = try metricsEnabled()
        configuration.cors = try corsPolicy()
        if isProduction {
            try ProductionPolicy.checkListener(configuration)
            try ProductionPolicy.checkTrustedProxies(configuration.trustedProxies)
            try ProductionPolicy.checkMetricsExposure(configuration, allowances: productionAllowances())
        }
        return configuration
    }

    /// `SECUREPUSH_METRICS_PORT`: a second, plain HTTP port serving only `GET /metrics`; unset serves it on the service
    /// port. Throws when it is not a port or is the service port itself.
    public func metricsPort(servicePort: Int) throws -> Int? {
        guard string("SECUREPUSH_METRICS_PORT") != nil else { return nil }
        let port = try int("SECUREPUSH_METRICS_PORT", default: 0, in: 1...65535)
        guard port != servicePort else {
            throw ConfigurationError("SECUREPUSH_METRICS_PORT must differ from the service port (\(servicePort))")
        }
        return port
    }

    /// `SECUREPUSH_METRICS`: `on` (the default) records metrics and serves `GET /metrics`; `off` installs no metrics
    /// backend and serves no `/metrics`. Anything else throws naming the variable and the accepted values.
    public func metricsEnabled() throws -> Bool {
        try choice(SettingCatalog.metrics) == "on"
    }

    /// `SECUREPUSH_FORWARDED_HEADER`: `x-forwarded-for` (the default) or `forwarded`, the one header read from
    /// trusted proxies; anything else throws naming the variable.
    public func forwardedHeader() throws -> ClientAddressResolver.Header {
        try choice(SettingCatalog.forwardedHeader, as: ClientAddressResolver.Header.self)
    }

    /// `SECUREPUSH_TRUSTED_PROXIES`: comma-separated CIDRs (IPv4 or IPv6) whose forwarding headers are believed;
    /// unset trusts no proxy. Throws naming the variable and the entry that is not a CIDR.
    public func trustedProxies() throws -> [IPNetwork] {
        guard let raw = string("SECUREPUSH_TRUSTED_PROXIES") else { return [] }
        return try raw.split(separator: ",").compactMap { entry in
            let text = entry.trimmingCharacters(in: .whitespaces)
            guard !text.isEmpty else { return nil }
            guard let network = IPNetwork(text) else {
                throw ConfigurationError(
                    "SECUREPUSH_TRUSTED_PROXIES: '\(text.prefix(64))' is not an IPv4 or IPv6 address or CIDR (e.g. 10.0.0.0/8, fd00::/8)"
                )
            }
            return network
        }
    }

    /// `SECUREPUSH_CORS_ORIGINS`: the browser origins that may call the service. Unset, development allows the web
    /// inbox's origins (push-dispatch's port on `127.0.0.1` and `localhost`) and production none. Throws naming the
    /// variable for an entry that is not an origin, and in production for `*` and for `http://` origins other than
    /// loopback.
    public func corsPolicy() throws -> CORSPolicy {
        let variable = "SECUREPUSH_CORS_ORIGINS"
        guard let raw = string(variable) else {
            if isProduction { return .none }
            let port = try int(SettingCatalog.dispatchPort)
            return CORSPolicy(origins: ["http://127.0.0.1:\(port)", "http://localhost:\(port)"])
        }
        var origins = Set<String>()
        var any = false
        for entry in raw.split(separator: ",") {
            let text = entry.trimmingCharacters(in: .whitespaces)
            guard !text.isEmpty else { continue }
            if text == "*" {
                guard !isProduction else {
                    throw ConfigurationError(
                        "\(variable): '*' lets every web site's pages call the service; list your apps' origins in production"
                    )
                }
                any = true
                continue
            }
            guard let origin = CORSPolicy.normalize(text) else {
                throw ConfigurationError(
                    "\(variable): '\(text.prefix(64))' is not an origin (scheme://host[:port], no path), e.g. https://app.example.com"
                )
            }
            if isProduction, origin.hasPrefix("http://"), !CORSPolicy.isLoopback(origin) {
                throw ConfigurationError(
                    "\(variable): '\(origin)' is not https: in production a page served in cleartext could be altered on its way to the browser"
                )
            }
            origins.insert(origin)
        }
        return CORSPolicy(origins: origins, allowsAnyOrigin: any)
    }

    /// A peer service's base URL from `setting` (``SettingCatalog/authURL``, ``SettingCatalog/storeURL``), its default
    /// when unset; in production, cleartext to another host is refused.
    public func peerURL(_ setting: TextSetting) throws -> String {
        let url = string(setting)!
        if isProduction { try ProductionPolicy.checkPeerURL(url, variable: setting.setting.name) }
        return url
    }

    /// A secret from `name`, or read from the file named by `name_FILE` (surrounding white space trimmed), so
    /// secrets can come from mounted files (Docker and Kubernetes secrets) instead of the environment. In production
    /// it must pass ``ProductionPolicy/checkSecret(_:variable:)``.
    public func secret(_ name: String) throws -> String? {
        var value = string(name)
        if value == nil, let path = string(name + "_FILE") {
            guard let contents = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw ConfigurationError("\(name)_FILE: cannot read '\(path)'")
            }
            value = contents.trimmingCharacters(in: .whitespacesAndNewlines)
            if value?.isEmpty == true { throw ConfigurationError("\(name)_FILE: '\(path)' is empty") }
        }
        if isProduction, let value { try ProductionPolicy.checkSecret(value, variable: name) }
        return value
    }

    /// The CA file to trust for https peers: `SECUREPUSH_CA_FILE` (unset: the system trust store).
    public var peerCAFile: String? { string("SECUREPUSH_CA_FILE") }
}

/// A configuration value is missing or wrong; the message says which and how to fix it.
public struct ConfigurationError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

extension ServiceEnvironment {
    /// `SECUREPUSH_DATABASE_URL`: a `postgres://` URL puts the service on PostgreSQL; unset keeps embedded SQLite.
    public func postgresURL() throws -> PostgresURL? {
        guard let text = string("SECUREPUSH_DATABASE_URL") else { return nil }
        let url = try PostgresURL(text)
        if isProduction { try ProductionPolicy.checkDatabase(url) }
        return url
    }
}
