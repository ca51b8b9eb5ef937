import AuthService
import Crypto
import DispatchService
import Foundation
import ServiceCore
import StoreService
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("SECUREPUSH_ENV=production refuses unsafe settings")
struct ProductionModeTests {
    /// A production configuration every service accepts: TLS on all interfaces, https peers, long secrets.
    static let safe: [String: String] = [
        "SECUREPUSH_ENV": "production",
        "SECUREPUSH_HOST": "0.0.0.0",
        "SECUREPUSH_TLS_CERT_FILE": "/etc/securepush/tls.pem", "SECUREPUSH_TLS_KEY_FILE": "/etc/securepush/key.pem",
        "SECUREPUSH_AUTH_URL": "https://auth.internal:8081", "SECUREPUSH_STORE_URL": "https://store.internal:8082",
        "SECUREPUSH_AUTH_SIGNING_KEY_FILE": "/etc/securepush/signing.pem",
        "SECUREPUSH_BOOTSTRAP_CLIENT_ID": "backend",
        "SECUREPUSH_BOOTSTRAP_CLIENT_SECRET": "b4f0c2e5a8d14f6bb1e9c7d3a2f5e8c1-backend",
        "SECUREPUSH_DISPATCH_CLIENT_ID": "push-dispatch",
        "SECUREPUSH_DISPATCH_CLIENT_SECRET": "9d2e7a1c4b8f4e0a9c3d6b2e5f8a1c7d-dispatch",
        "SECUREPUSH_DATABASE_URL": "postgres://securepush@db.internal/securepush?sslmode=require",
        "SECUREPUSH_STORE_KEY_FILE": "/etc/securepush/store-keys",
        "SECUREPUSH_METRICS_PORT": "9464",
        "SECUREPUSH_STORE_CLIENT_ID": "notification-store",
        "SECUREPUSH_STORE_CLIENT_SECRET": "3e8b1d6f0a9c4d2e8f7a1b5c9d3e6f2a-store",
        "SECUREPUSH_AUDIT_KEY_FILE": "/etc/securepush/audit-signing-key.pem",
        "SECUREPUSH_AUDIT_CHECKPOINT_DIR": "/var/lib/securepush-audit",
    ]

    /// Reads every service's configuration from `environment` the way the executables do.
    static func readAll(_ environment: [String: String]) throws {
        let environment = ServiceEnvironment(environment)
        _ = try AuthConfiguration(environment: environment)
        _ = try StoreConfiguration(environment: environment)
        _ = try DispatchConfiguration(environment: environment)
        _ = try environment.peerURL(SettingCatalog.authURL)
        _ = try environment.peerURL(SettingCatalog.storeURL)
    }

    @Test("a safe production configuration starts")
    func safeConfiguration() throws {
        try Self.readAll(Self.safe)
    }

    @Test(
        "each unsafe setting is refused with a message naming its variable",
        arguments: [
            (
                "cleartext on all interfaces", ["SECUREPUSH_TLS_CERT_FILE": "", "SECUREPUSH_TLS_KEY_FILE": ""],
                "SECUREPUSH_HOST"
            ),
            (
                "cleartext on a LAN address",
                ["SECUREPUSH_HOST": "10.0.0.5", "SECUREPUSH_TLS_CERT_FILE": "", "SECUREPUSH_TLS_KEY_FILE": ""],
                "SECUREPUSH_HOST"
            ),
            (
                "http:// auth on another host", ["SECUREPUSH_AUTH_URL": "http://auth.internal:8081"],
                "SECUREPUSH_AUTH_URL"
            ),
            ("no store key file", ["SECUREPUSH_STORE_KEY_FILE": ""], "SECUREPUSH_STORE_KEY_FILE"),
            ("no audit key file", ["SECUREPUSH_AUDIT_KEY_FILE": ""], "SECUREPUSH_AUDIT_KEY_FILE"),
            (
                "no audit checkpoint directory", ["SECUREPUSH_AUDIT_CHECKPOINT_DIR": ""],
                "SECUREPUSH_AUDIT_CHECKPOINT_DIR"
            ),
            (
                "no store client", ["SECUREPUSH_STORE_CLIENT_ID": "", "SECUREPUSH_STORE_CLIENT_SECRET": ""],
                "SECUREPUSH_STORE_CLIENT_ID"
            ),
            (
                "a 31-byte store secret", ["SECUREPUSH_STORE_CLIENT_SECRET": String(repeating: "x", count: 31)],
                "SECUREPUSH_STORE_CLIENT_SECRET"
            ),
            ("http:// store on another host", ["SECUREPUSH_STORE_URL": "http://10.0.0.7:8082"], "SECUREPUSH_STORE_URL"),
            (
                "a 31-byte backend secret", ["SECUREPUSH_BOOTSTRAP_CLIENT_SECRET": String(repeating: "x", count: 31)],
                "SECUREPUSH_BOOTSTRAP_CLIENT_SECRET"
            ),
            (
                "a 31-byte dispatch secret", ["SECUREPUSH_DISPATCH_CLIENT_SECRET": String(repeating: "x", count: 31)],
                "SECUREPUSH_DISPATCH_CLIENT_SECRET"
            ),
            (
                "compose's development backend secret",
                ["SECUREPUSH_BOOTSTRAP_CLIENT_SECRET": "development-backend-secret-change-me"],
                "SECUREPUSH_BOOTSTRAP_CLIENT_SECRET"
            ),
            (
                "compose's development dispatch secret",
                ["SECUREPUSH_DISPATCH_CLIENT_SECRET": "development-dispatch-secret-change-me"],
                "SECUREPUSH_DISPATCH_CLIENT_SECRET"
            ),
            (
                "PostgreSQL with sslmode=prefer",
                ["SECUREPUSH_DATABASE_URL": "postgres://securepush@db.internal/securepush?sslmode=prefer"],
                "SECUREPUSH_DATABASE_URL"
            ),
            (
                "PostgreSQL without sslmode",
                ["SECUREPUSH_DATABASE_URL": "postgres://securepush@db.internal/securepush"], "SECUREPUSH_DATABASE_URL"
            ),
            (
                "PostgreSQL with sslmode=disable",
                ["SECUREPUSH_DATABASE_URL": "postgres://securepush@10.1.1.1/securepush?sslmode=disable"],
                "SECUREPUSH_DATABASE_URL"
            ),
            // issue 23
            ("a misspelt SECUREPUSH_ENV", ["SECUREPUSH_ENV": "prod"], "SECUREPUSH_ENV"),
            (
                "every IPv4 address trusted as a proxy", ["SECUREPUSH_TRUSTED_PROXIES": "10.0.0.0/8, 0.0.0.0/0"],
                "SECUREPUSH_TRUSTED_PROXIES"
            ),
            (
                "every IPv6 address trusted as a proxy", ["SECUREPUSH_TRUSTED_PROXIES": "::/0"],
                "SECUREPUSH_TRUSTED_PROXIES"
            ),
            ("/metrics on the public service port", ["SECUREPUSH_METRICS_PORT": ""], "SECUREPUSH_METRICS_PORT"),
            ("the per-address rate limit off", ["SECUREPUSH_AUTH_RATE_LIMIT": "0"], "SECUREPUSH_AUTH_RATE_LIMIT"),
            ("the failed sign-in limit off", ["SECUREPUSH_LOGIN_MAX_FAILURES": "0"], "SECUREPUSH_LOGIN_MAX_FAILURES"),
            (
                "an unknown exception allowed", ["SECUREPUSH_PRODUCTION_ALLOW": "everything"],
                "SECUREPUSH_PRODUCTION_ALLOW"
            ),
        ])
    func refusal(case name: String, change: [String: String], variable: String) throws {
        let error = try #require(throws: ConfigurationError.self, "\(name)") {
            try Self.readAll(Self.safe.merging(change) { $1 })
        }
        #expect(error.description.hasPrefix(variable), "\(name): \(error.description)")
        // The same settings outside production still start: the checks are production's alone.
        try Self.readAll(Self.safe.merging(change) { $1 }.merging(["SECUREPUSH_ENV": "development"]) { $1 })
    }

    @Test("SECUREPUSH_PRODUCTION_ALLOW names the refusals an operator accepts; metrics off needs no exception")
    func allowances() throws {
        let unsafe = [
            "SECUREPUSH_METRICS_PORT": "", "SECUREPUSH_AUTH_RATE_LIMIT": "0", "SECUREPUSH_LOGIN_MAX_FAILURES": "0",
        ]
        #expect(throws: ConfigurationError.self) { try Self.readAll(Self.safe.merging(unsafe) { $1 }) }
        try Self.readAll(
            Self.safe.merging(unsafe) { $1 }.merging(["SECUREPUSH_PRODUCTION_ALLOW": "public-metrics, No-Auth-Limits"])
            {
                $1
            })
        try Self.readAll(Self.safe.merging(["SECUREPUSH_METRICS_PORT": "", "SECUREPUSH_METRICS": "off"]) { $1 })
        try Self.readAll(Self.safe.merging(["SECUREPUSH_ENV": "Production"]) { $1 })
        #expect(throws: ConfigurationError.self) {
            try Self.readAll(Self.safe.merging(["SECUREPUSH_METRICS_PORT": "", "SECUREPUSH_ENV": "PRODUCTION"]) { $1 })
        }
    }

    @Test(
        "loopback stays allowed in production: cleartext on 127.0.0.1 and http:// peers on this host",
        arguments: ["127.0.0.1", "localhost", "::1"])
    func loopbackAllowed(host: String) throws {
        let literal = host.contains(":") ? "[\(host)]" : host
        try Self.readAll(
            Self.safe.merging([
                "SECUREPUSH_HOST": host, "SECUREPUSH_TLS_CERT_FILE": "", "SECUREPUSH_TLS_KEY_FILE": "",
                "SECUREPUSH_AUTH_URL": "http://\(literal):8081", "SECUREPUSH_STORE_URL": "http://\(literal):8082",
                "SECUREPUSH_DATABASE_URL": "postgres://securepush@\(literal)/securepush?sslmode=disable",
            ]) { $1 })
    }

    @Test("secrets can come from files (…_SECRET_FILE), and are checked like the variables")
    func secretFiles() throws {
        let directory = TemporaryDirectory.processRootURL.appendingPathComponent("secrets-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let good = directory.appendingPathComponent("good").path
        let short = directory.appendingPathComponent("short").path
        try "7c1e9a4d2b8f4a6e8d3c1b5f9e2a7d4c\n".write(toFile: good, atomically: true, encoding: .utf8)
        try "too-short\n".write(toFile: short, atomically: true, encoding: .utf8)
        var environment = Self.safe
        environment["SECUREPUSH_DISPATCH_CLIENT_SECRET"] = nil
        environment["SECUREPUSH_DISPATCH_CLIENT_SECRET_FILE"] = good
        try Self.readAll(environment)
        let configuration = try DispatchConfiguration(environment: ServiceEnvironment(environment))
        #expect(configuration.dispatchClientSecret == "7c1e9a4d2b8f4a6e8d3c1b5f9e2a7d4c")
        environment["SECUREPUSH_DISPATCH_CLIENT_SECRET_FILE"] = short
        let error = try #require(throws: ConfigurationError.self) { try Self.readAll(environment) }
        #expect(error.description.hasPrefix("SECUREPUSH_DISPATCH_CLIENT_SECRET"))
    }

    @Test("Web Push without an allow-list is refused in production")
    func webPushAllowList() throws {
        let directory = TemporaryDirectory.processRootURL.appendingPathComponent("vapid-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let keyFile = directory.appendingPathComponent("vapid.pem").path
        try P256.Signing.PrivateKey().pemRepresentation.write(toFile: keyFile, atomically: true, encoding: .utf8)
        var environment = Self.safe
        environment["SECUREPUSH_VAPID_PRIVATE_KEY_FILE"] = keyFile
        environment["SECUREPUSH_VAPID_SUBJECT"] = "mailto:ops@example.com"
        let error = try #require(throws: ConfigurationError.self) {
            try WebPushConfiguration.fromEnvironment(ServiceEnvironment(environment))
        }
        #expect(error.description.hasPrefix("SECUREPUSH_WEBPUSH_ALLOWED_HOSTS"))
        environment["SECUREPUSH_WEBPUSH_ALLOWED_HOSTS"] = "fcm.googleapis.com"
        #expect(try WebPushConfiguration.fromEnvironment(ServiceEnvironment(environment)) != nil)
    }

    @Test(
        "auth-service in production on 0.0.0.0 without TLS exits 1: one line naming SECUREPUSH_HOST, one security event"
    )
    func processRefusesToStart() async throws {
        let (status, output) = try await ServiceProcess.runUntilExit(
            "auth-service",
            environment: [
                "SECUREPUSH_ENV": "production", "SECUREPUSH_HOST": "0.0.0.0", "SECUREPUSH_AUTH_PORT": "0",
                "SECUREPUSH_AUTH_SIGNING_KEY_FILE": "/nonexistent/signing.pem",
                "SECUREPUSH_DATA_DIR": TemporaryDirectory.processRootURL.appendingPathComponent(
                    "refusal-\(UUID().uuidString)"
                ).path,
            ])
        #expect(status == 1)
        let lines = output.split(separator: "\n")
        let refusals = lines.filter { $0.hasPrefix("auth-service: configuration error: SECUREPUSH_HOST=0.0.0.0") }
        let events = lines.filter { $0.contains("security.event=config.production.refused") }
        #expect(refusals.count == 1, "\(output)")
        #expect(events.count == 1, "\(output)")
        #expect(lines.count == 2, "\(output)")
    }

    @Test("a refused configuration is also a signed config.refused entry in the service's audit trail")
    func refusalAudited() async throws {
        let directory = TemporaryDirectory.processRootURL.appendingPathComponent("refusal-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let auditKey = directory.appendingPathComponent("audit.pem").path
        _ = try AuditSigningKey.loadOrCreate(path: auditKey)
        let checkpoints = directory.appendingPathComponent("checkpoints").path
        // A deployment that ran before: its database exists (a refused start creates none).
        _ = try ServiceDatabase.sqlite(
            path: directory.appendingPathComponent("auth.sqlite").path, migrations: AuthMigrations.all)
        let process = Process()
        process.executableURL = ServiceProcess.buildDirectory.appendingPathComponent("auth-service")
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("SECUREPUSH_") }
            .merging([
                "SECUREPUSH_ENV": "production", "SECUREPUSH_HOST": "127.0.0.1", "SECUREPUSH_AUTH_PORT": "0",
                "SECUREPUSH_DATA_DIR": directory.path, "SECUREPUSH_AUTH_SIGNING_KEY_FILE": auditKey,
                "SECUREPUSH_AUDIT_KEY_FILE": auditKey, "SECUREPUSH_AUDIT_CHECKPOINT_DIR": checkpoints,
                "SECUREPUSH_AUTH_RATE_LIMIT": "0",
            ]) { _, new in new }
        process.standardInput = FileHandle.nullDevice
        let refused = try await process.runCapturingOutput()
        #expect(refused.status == 1)
        #expect(refused.error.contains("SECUREPUSH_AUTH_RATE_LIMIT=0"), "\(refused.error)")

        let exported = try await StoreKeysCLITests.securepush([
            "audit", "export", "--data-dir", directory.path, "--service", "auth", "--since", "1h",
        ])
        let entry = try #require(
            exported.output.split(separator: "\n").first { $0.contains(#""type":"config.refused""#) },
            "\(exported.output)")
        #expect(entry.contains("SECUREPUSH_AUTH_RATE_LIMIT=0"))
        #expect(entry.contains(#""production":true"#))
        let verified = try await StoreKeysCLITests.securepush([
            "audit", "verify", "--data-dir", directory.path, "--service", "auth", "--public-key", auditKey,
            "--checkpoint-dir", checkpoints,
        ])
        #expect(verified.status == 0, "\(verified.output)")
        #expect(verified.output.contains("ok auth: 1 chains, 2 entries"), "\(verified.output)")
    }
}
