import Foundation
import SecurePushClient
import TestSupport
import Testing

/// `SECUREPUSH_METRICS`: `on` by default, `off` installs no metrics backend and serves no `/metrics`.
@Suite("SECUREPUSH_METRICS turns metrics off, and nothing but on or off is accepted")
struct MetricsSwitchTests {
    @Test("with SECUREPUSH_METRICS=off every service answers /metrics with 404 and the story still works")
    func off() async throws {
        let stack = try await TestStack.start(.cleartext, extra: ["SECUREPUSH_METRICS": "off"])
        do {
            let demo = SecurePushDemo(
                endpoints: stack.endpoints, clientID: stack.backendClientID, clientSecret: stack.backendClientSecret)
            _ = try await demo.run(logger: stack.logger) { _ in }
            for url in [stack.stack.authURL, stack.stack.storeURL, stack.stack.dispatchURL] {
                let scraped = try await Curl.run(["--http2-prior-knowledge", "\(url)/metrics"])
                #expect(scraped.status == 404, "\(url)")
                #expect(!scraped.body.contains("securepush_"), "\(url)")
                let health = try await Curl.run(["--http2-prior-knowledge", "\(url)/health"])
                #expect(health.status == 200, "\(url)")
            }
        } catch {
            await stack.stop()
            throw error
        }
        await stack.stop()
    }

    @Test("any other value stops the service at start with one line naming the variable and the accepted values")
    func badValueRefused() async throws {
        let directory = TemporaryDirectory.processRootURL.appendingPathComponent("metrics-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (status, output) = try await ServiceProcess.runUntilExit(
            "store-service",
            environment: [
                "SECUREPUSH_METRICS": "yes", "SECUREPUSH_STORE_PORT": "0", "SECUREPUSH_HOST": "127.0.0.1",
                "SECUREPUSH_DATA_DIR": directory.path,
            ])
        #expect(status == 1)
        #expect(
            output.contains("store-service: configuration error: SECUREPUSH_METRICS must be 'on' or 'off', got 'yes'"),
            "\(output)")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("store.sqlite").path))
    }
}
