import Foundation
import PostgresNIO

/// A `postgres://` URL (`SECUREPUSH_DATABASE_URL`) turned into a connection configuration.
///
/// Forms: `postgres://user:password@host:5432/database?sslmode=require`, and for a unix socket
/// `postgres://user@/database?host=/var/run/postgresql` (the socket directory; the port picks `.s.PGSQL.<port>`).
/// `sslmode` is `disable`, `prefer` (the default) or `require` (TLS with certificate verification); `pool_size`
/// caps the connections (default 20); `schema` names the PostgreSQL schema for the service's tables.
public struct PostgresURL: Sendable, CustomStringConvertible {
    /// The configuration `PostgresClient` connects with.
    public let configuration: PostgresClient.Configuration
    /// The URL with the password masked, for logs.
    public let description: String
    /// `?schema=NAME`: the PostgreSQL schema for the service's tables instead of its default (`auth`, `store`,
    /// `dispatch`).
    public let schema: String?
    /// The TCP host, `nil` for a unix socket.
    public let host: String?
    /// `sslmode` as given (`prefer` when absent).
    public let sslMode: String

    /// Whether the connection must use TLS (`sslmode` `require`, `verify-ca` or `verify-full`).
    public var requiresTLS: Bool { ["require", "verify-ca", "verify-full"].contains(sslMode) }

    /// Parses `text`.
    ///
    /// - Throws: ``ConfigurationError`` naming `variable` when the URL is not a usable `postgres://` URL.
    public init(_ text: String, variable: String = "SECUREPUSH_DATABASE_URL") throws {
        func invalid(_ reason: String) -> ConfigurationError {
            ConfigurationError("\(variable) \(reason)")
        }
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            scheme == "postgres" || scheme == "postgresql"
        else {
            throw invalid("must be a postgres:// URL")
        }
        guard let username = components.user.flatMap({ $0.removingPercentEncoding ?? $0 }), !username.isEmpty else {
            throw invalid("must name a user (postgres://user@host/database)")
        }
        let password = components.password.flatMap { $0.removingPercentEncoding ?? $0 }
        let database = String(components.path.drop { $0 == "/" })
        guard !database.isEmpty else { throw invalid("must name a database (postgres://user@host/database)") }
        let query = Dictionary(
            (components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { _, last in last })
        let port = components.port ?? 5432
        guard (1...65535).contains(port) else { throw invalid("port must be 1–65535") }

        var configuration: PostgresClient.Configuration
        sslMode = query["sslmode"] ?? "prefer"
        if let socketDirectory = query["host"], socketDirectory.hasPrefix("/") {
            host = nil
            configuration = .init(
                unixSocketPath: "\(socketDirectory)/.s.PGSQL.\(port)", username: username, password: password,
                database: database)
        } else {
            guard let host = components.host, !host.isEmpty else {
                throw invalid("must name a host, or a socket directory with ?host=/path")
            }
            self.host = host
            let tls: PostgresClient.Configuration.TLS
            switch sslMode {
            case "disable": tls = .disable
            case "prefer", "allow": tls = .prefer(.makeClientConfiguration())
            case "require", "verify-ca", "verify-full": tls = .require(.makeClientConfiguration())
            case let other: throw invalid("sslmode '\(other)' is not one of disable, prefer, require")
            }
            configuration = .init(
                host: host, port: port, username: username, password: password, database: database, tls: tls)
        }
        if let size = query["pool_size"] {
            guard let value = Int(size), (1...500).contains(value) else { throw invalid("pool_size must be 1–500") }
            configuration.options.maximumConnections = value
        }
        if let schema = query["schema"] {
            let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789_")
            guard !schema.isEmpty, schema.count <= 63, schema.allSatisfy(allowed.contains), !schema.first!.isNumber
            else { throw invalid("schema must be 1–63 of a-z 0-9 _ and not start with a digit") }
            self.schema = schema
        } else {
            self.schema = nil
        }
        self.configuration = configuration
        var masked = components
        if masked.password != nil { masked.password = "***" }
        description = masked.string ?? "postgres://"
    }
}
