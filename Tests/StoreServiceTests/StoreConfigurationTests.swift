import Foundation
import ServiceCore
import StoreService
import Testing

@Suite("configuration")
struct StoreConfigurationTests {
    @Test("an empty environment gives the documented defaults")
    func defaults() throws {
        let configuration = try StoreConfiguration(environment: ServiceEnvironment([:]))
        #expect(configuration.server.port == 8082)
        #expect(configuration.server.host == "127.0.0.1")
        #expect(configuration.server.tls == nil)
        #expect(configuration.databasePath?.hasSuffix(".securepush/store.sqlite") == true)
        #expect(configuration.maxPayloadBytes == 65_536)
        #expect(configuration.defaultTTLSeconds == 604_800)
        #expect(configuration.maxTTLSeconds == 2_592_000)
        #expect(configuration.purgeInterval == .seconds(60))
    }

    @Test("SECUREPUSH_METRICS is on by default, off when asked in any case, and refused naming itself otherwise")
    func metricsSwitch() throws {
        func enabled(_ value: String?) throws -> Bool {
            try StoreConfiguration(environment: ServiceEnvironment(value.map { ["SECUREPUSH_METRICS": $0] } ?? [:]))
                .server.metricsEnabled
        }
        #expect(try enabled(nil))
        #expect(try enabled(""))
        #expect(try enabled("on"))
        #expect(try !enabled("off"))
        #expect(try !enabled("OFF"))
        for bad in ["yes", "0", "false", "of f"] {
            #expect {
                try enabled(bad)
            } throws: { error in
                "\(error)" == "SECUREPUSH_METRICS must be 'on' or 'off', got '\(bad)'"
            }
        }
    }

    @Test("variables override the defaults")
    func overrides() throws {
        let configuration = try StoreConfiguration(
            environment: ServiceEnvironment([
                "SECUREPUSH_STORE_PORT": "9092",
                "SECUREPUSH_DATA_DIR": "/var/lib/securepush",
                "SECUREPUSH_MAX_PAYLOAD_BYTES": "1024",
                "SECUREPUSH_DEFAULT_TTL": "60",
                "SECUREPUSH_MAX_TTL": "120",
                "SECUREPUSH_STORE_PURGE_INTERVAL": "5",
            ]))
        #expect(configuration.server.port == 9092)
        #expect(configuration.databasePath == "/var/lib/securepush/store.sqlite")
        #expect(configuration.maxPayloadBytes == 1024)
        #expect(configuration.defaultTTLSeconds == 60)
        #expect(configuration.maxTTLSeconds == 120)
        #expect(configuration.purgeInterval == .seconds(5))
    }

    @Test(
        "nonsense values are refused naming the variable",
        arguments: [
            ("SECUREPUSH_MAX_PAYLOAD_BYTES", "lots"),
            ("SECUREPUSH_MAX_PAYLOAD_BYTES", "0"),
            ("SECUREPUSH_MAX_TTL", "-1"),
            ("SECUREPUSH_DEFAULT_TTL", "0"),
            ("SECUREPUSH_STORE_PURGE_INTERVAL", "0"),
            ("SECUREPUSH_STORE_PORT", "70000"),
        ])
    func refusals(_ variable: String, _ value: String) throws {
        let error = #expect(throws: ConfigurationError.self) {
            try StoreConfiguration(environment: ServiceEnvironment([variable: value]))
        }
        #expect(error?.description.contains(variable) == true)
    }

    @Test("a default TTL longer than the maximum is refused")
    func defaultAboveMaximum() throws {
        let error = #expect(throws: ConfigurationError.self) {
            try StoreConfiguration(
                environment: ServiceEnvironment(["SECUREPUSH_DEFAULT_TTL": "7200", "SECUREPUSH_MAX_TTL": "3600"]))
        }
        #expect(error?.description.contains("SECUREPUSH_DEFAULT_TTL") == true)
    }
}
