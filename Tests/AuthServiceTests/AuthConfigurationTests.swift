import AuthService
import Foundation
import ServiceCore
import Testing

@Suite("Configuration from the environment")
struct AuthConfigurationTests {
    @Test("defaults: port 8081, auth.sqlite in the data directory, 15-minute tokens, bcrypt cost 12")
    func defaults() throws {
        let configuration = try AuthConfiguration(environment: ServiceEnvironment([:]))
        #expect(configuration.server.port == 8081)
        #expect(configuration.server.host == "127.0.0.1")
        #expect(configuration.databasePath == "./.securepush/auth.sqlite")
        #expect(configuration.accessTokenTTL == 900)
        #expect(configuration.refreshTokenTTL == 2_592_000)
        #expect(configuration.bcryptCost == 12)
        #expect(configuration.bootstrapClient == nil)
        #expect(configuration.dispatchClient == nil)
        #expect(!configuration.isProduction)
        #expect(configuration.maxFailedLogins == 10)
        #expect(configuration.authRateLimit == 120)
        #expect(configuration.passwordQueueLength == 16)
        #expect(configuration.passwordChecksPerAddress == 4)
        #expect(configuration.selfRegistration)
        #expect(configuration.server.trustedProxies.isEmpty)
    }

    @Test("every variable is read")
    func variables() throws {
        let configuration = try AuthConfiguration(
            environment: ServiceEnvironment([
                "SECUREPUSH_AUTH_PORT": "9001",
                "SECUREPUSH_DATA_DIR": "/var/lib/securepush",
                "SECUREPUSH_AUTH_SIGNING_KEY_FILE": "/etc/securepush/key.pem",
                "SECUREPUSH_ACCESS_TOKEN_TTL": "600",
                "SECUREPUSH_REFRESH_TOKEN_TTL": "86400",
                "SECUREPUSH_BCRYPT_COST": "11",
                "SECUREPUSH_BOOTSTRAP_CLIENT_ID": "backend",
                "SECUREPUSH_BOOTSTRAP_CLIENT_SECRET": "backend-secret",
                "SECUREPUSH_DISPATCH_CLIENT_ID": "dispatch",
                "SECUREPUSH_DISPATCH_CLIENT_SECRET": "dispatch-secret",
                "SECUREPUSH_LOGIN_MAX_FAILURES": "5",
                "SECUREPUSH_LOGIN_FAILURE_WINDOW": "60",
                "SECUREPUSH_AUTH_RATE_LIMIT": "0",
                "SECUREPUSH_BCRYPT_QUEUE": "3",
                "SECUREPUSH_BCRYPT_PER_ADDRESS": "2",
                "SECUREPUSH_SELF_REGISTRATION": "false",
                "SECUREPUSH_TRUSTED_PROXIES": "10.0.0.0/8",
            ]))
        #expect(configuration.server.port == 9001)
        #expect(configuration.databasePath == "/var/lib/securepush/auth.sqlite")
        #expect(configuration.signingKeyFile == "/etc/securepush/key.pem")
        #expect(configuration.accessTokenTTL == 600)
        #expect(configuration.refreshTokenTTL == 86400)
        #expect(configuration.bcryptCost == 11)
        #expect(configuration.bootstrapClient == .init(clientId: "backend", secret: "backend-secret"))
        #expect(configuration.dispatchClient == .init(clientId: "dispatch", secret: "dispatch-secret"))
        #expect(configuration.maxFailedLogins == 5)
        #expect(configuration.failedLoginWindow == 60)
        #expect(configuration.authRateLimit == 0)
        #expect(configuration.passwordQueueLength == 3)
        #expect(configuration.passwordChecksPerAddress == 2)
        #expect(configuration.selfRegistration == false)
        #expect(configuration.server.trustedProxies.map(\.description) == ["10.0.0.0/8"])
    }

    @Test(
        "bad values are refused with the variable's name",
        arguments: [
            ["SECUREPUSH_BCRYPT_COST": "9"],
            ["SECUREPUSH_BCRYPT_COST": "17"],
            ["SECUREPUSH_ACCESS_TOKEN_TTL": "soon"],
            ["SECUREPUSH_AUTH_RATE_LIMIT": "-1"],
            ["SECUREPUSH_BCRYPT_PER_ADDRESS": "0"],
            ["SECUREPUSH_TRUSTED_PROXIES": "10.0.0.0/40"],
            ["SECUREPUSH_BOOTSTRAP_CLIENT_ID": "backend"],
            ["SECUREPUSH_DISPATCH_CLIENT_SECRET": "lonely-secret"],
            ["SECUREPUSH_BOOTSTRAP_CLIENT_ID": "bad id", "SECUREPUSH_BOOTSTRAP_CLIENT_SECRET": "secret"],
        ])
    func refusals(environment: [String: String]) throws {
        let error = try #require(
            #expect(throws: ConfigurationError.self) {
                try AuthConfiguration(environment: ServiceEnvironment(environment))
            })
        let named = environment.keys.contains { error.description.contains($0) }
        #expect(named, "\(error.description)")
    }

    @Test("in production a client secret shorter than 32 bytes is refused (issue 11: was 16 characters)")
    func productionSecretLength() throws {
        let base = [
            "SECUREPUSH_ENV": "production", "SECUREPUSH_AUTH_SIGNING_KEY_FILE": "/etc/key.pem",
            "SECUREPUSH_BOOTSTRAP_CLIENT_ID": "backend", "SECUREPUSH_AUDIT_KEY_FILE": "/etc/audit.pem",
            "SECUREPUSH_AUDIT_CHECKPOINT_DIR": "/var/lib/securepush-audit",
        ]
        let error = try #require(
            #expect(throws: ConfigurationError.self) {
                try AuthConfiguration(
                    environment: ServiceEnvironment(
                        base.merging(["SECUREPUSH_BOOTSTRAP_CLIENT_SECRET": String(repeating: "s", count: 31)]) { $1 }))
            })
        #expect(error.description.contains("SECUREPUSH_BOOTSTRAP_CLIENT_SECRET"))
        let accepted = try AuthConfiguration(
            environment: ServiceEnvironment(
                base.merging(["SECUREPUSH_BOOTSTRAP_CLIENT_SECRET": String(repeating: "s", count: 32)]) { $1 }))
        #expect(accepted.isProduction)
    }

    @Test("the bootstrap and dispatch clients must be different clients")
    func distinctClients() throws {
        #expect(throws: ConfigurationError.self) {
            try AuthConfiguration(
                environment: ServiceEnvironment([
                    "SECUREPUSH_BOOTSTRAP_CLIENT_ID": "same", "SECUREPUSH_BOOTSTRAP_CLIENT_SECRET": "one",
                    "SECUREPUSH_DISPATCH_CLIENT_ID": "same", "SECUREPUSH_DISPATCH_CLIENT_SECRET": "two",
                ]))
        }
    }

    @Test("buildAuthApplication composes the service from a configuration")
    func buildsApplication() async throws {
        _ = try await buildAuthApplication(configuration: AuthHarness.configuration(), logger: AuthHarness.logger)
        var production = AuthHarness.configuration()
        production.isProduction = true
        await #expect(throws: ConfigurationError.self) {
            _ = try await buildAuthApplication(configuration: production, logger: AuthHarness.logger)
        }
    }
}
