import DispatchService
import Foundation
import ServiceCore
import SharedModels
import Testing

@Suite("DispatchConfiguration from the environment")
struct DispatchConfigurationTests {
    static let credentials = [
        "SECUREPUSH_DISPATCH_CLIENT_ID": "push-dispatch", "SECUREPUSH_DISPATCH_CLIENT_SECRET": "s3cret",
    ]

    @Test("defaults: port 8083, dispatch.sqlite in the data directory, documented limits, 15 s keepalive")
    func defaults() throws {
        let configuration = try DispatchConfiguration(
            environment: ServiceEnvironment(Self.credentials.merging(["SECUREPUSH_DATA_DIR": "/tmp/sp-data"]) { $1 }))
        #expect(configuration.server.port == 8083)
        #expect(configuration.server.host == "127.0.0.1")
        #expect(configuration.databasePath == "/tmp/sp-data/dispatch.sqlite")
        #expect(configuration.dispatchClientID == "push-dispatch")
        #expect(configuration.dispatchClientSecret == "s3cret")
        #expect(configuration.maxPayloadBytes == 65_536)
        #expect(configuration.maxTTLSeconds == 2_592_000)
        #expect(configuration.keepaliveInterval == .seconds(15))
        #expect(configuration.expiryInterval == .seconds(60))
    }

    @Test("variables override the defaults")
    func overrides() throws {
        let configuration = try DispatchConfiguration(
            environment: ServiceEnvironment(
                Self.credentials.merging([
                    "SECUREPUSH_DISPATCH_PORT": "9083", "SECUREPUSH_MAX_PAYLOAD_BYTES": "1000",
                    "SECUREPUSH_MAX_TTL": "3600", "SECUREPUSH_DISPATCH_KEEPALIVE": "5",
                    "SECUREPUSH_DISPATCH_EXPIRY_INTERVAL": "30",
                ]) { $1 }))
        #expect(configuration.server.port == 9083)
        #expect(configuration.maxPayloadBytes == 1000)
        #expect(configuration.maxTTLSeconds == 3600)
        #expect(configuration.keepaliveInterval == .seconds(5))
        #expect(configuration.expiryInterval == .seconds(30))
    }

    @Test("missing client credentials are refused, naming the variables")
    func credentialsAreRequired() {
        for environment in [[:], ["SECUREPUSH_DISPATCH_CLIENT_ID": "push-dispatch"]] {
            #expect {
                try DispatchConfiguration(environment: ServiceEnvironment(environment))
            } throws: { error in
                "\(error)".contains("SECUREPUSH_DISPATCH_CLIENT_SECRET")
            }
        }
    }

    @Test("a keepalive outside 1…3600 seconds is refused")
    func keepaliveBounds() {
        #expect(throws: ConfigurationError.self) {
            try DispatchConfiguration(
                environment: ServiceEnvironment(Self.credentials.merging(["SECUREPUSH_DISPATCH_KEEPALIVE": "0"]) { $1 })
            )
        }
    }

    @Test("health reports the database and auth's keys")
    func health() async throws {
        let harness = try await DispatchHarness()
        #expect(await harness.components.health() == ["database": "ok", "keys": "ok"])
        #expect(harness.components.dispatcher.methodNames == MethodCatalog.dispatch)
    }
}

@Suite("DeliveryConfiguration from the environment")
struct DeliveryConfigurationTests {
    @Test(
        "defaults: 64 in flight per provider, 60 s leases, 30 s idle tick, backoff 1 s doubling to 300 s, 10 attempts")
    func defaults() throws {
        let delivery = try DispatchConfiguration(
            environment: ServiceEnvironment(DispatchConfigurationTests.credentials)
        )
        .delivery
        #expect(delivery.concurrency == 64)
        #expect([Platform.apns, .fcm, .wns, .webpush].map(delivery.concurrency(for:)) == [64, 64, 64, 64])
        #expect(delivery.leaseTimeout == .seconds(60))
        #expect(delivery.idleInterval == .seconds(30))
        #expect(delivery.retry.baseDelay == .seconds(1))
        #expect(delivery.retry.maxDelay == .seconds(300))
        #expect(delivery.retry.maxAttempts == 10)
    }

    @Test("variables override the defaults, per platform for concurrency")
    func overrides() throws {
        let delivery = try DeliveryConfiguration(
            environment: ServiceEnvironment([
                "SECUREPUSH_DELIVERY_CONCURRENCY": "16", "SECUREPUSH_APNS_CONCURRENCY": "200",
                "SECUREPUSH_WEBPUSH_CONCURRENCY": "4", "SECUREPUSH_DELIVERY_MAX_ATTEMPTS": "5",
                "SECUREPUSH_DELIVERY_BACKOFF_BASE": "2", "SECUREPUSH_DELIVERY_BACKOFF_MAX": "60",
                "SECUREPUSH_DELIVERY_LEASE_TIMEOUT": "120", "SECUREPUSH_DELIVERY_IDLE_INTERVAL": "5",
            ]))
        #expect([Platform.apns, .fcm, .wns, .webpush].map(delivery.concurrency(for:)) == [200, 16, 16, 4])
        #expect(delivery.retry.maxAttempts == 5)
        #expect(delivery.retry.baseDelay == .seconds(2))
        #expect(delivery.retry.maxDelay == .seconds(60))
        #expect(delivery.leaseTimeout == .seconds(120))
        #expect(delivery.idleInterval == .seconds(5))
    }

    @Test(
        "out-of-range values are refused, naming the variable",
        arguments: [
            ("SECUREPUSH_DELIVERY_CONCURRENCY", "0"), ("SECUREPUSH_FCM_CONCURRENCY", "many"),
            ("SECUREPUSH_DELIVERY_MAX_ATTEMPTS", "0"), ("SECUREPUSH_DELIVERY_LEASE_TIMEOUT", "1"),
            ("SECUREPUSH_DELIVERY_BACKOFF_MAX", "0"),
        ])
    func refusals(name: String, value: String) {
        #expect {
            try DeliveryConfiguration(environment: ServiceEnvironment([name: value]))
        } throws: { error in
            error is ConfigurationError && "\(error)".contains(name)
        }
    }

    @Test("a backoff cap below the base is refused, naming both variables")
    func capBelowBase() {
        #expect {
            try DeliveryConfiguration(
                environment: ServiceEnvironment([
                    "SECUREPUSH_DELIVERY_BACKOFF_BASE": "10", "SECUREPUSH_DELIVERY_BACKOFF_MAX": "5",
                ]))
        } throws: { error in
            "\(error)".contains("SECUREPUSH_DELIVERY_BACKOFF_MAX")
                && "\(error)".contains("SECUREPUSH_DELIVERY_BACKOFF_BASE")
        }
    }
}
