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
