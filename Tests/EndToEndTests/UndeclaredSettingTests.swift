import Foundation
import Logging
import TestSupport
import Testing

/// Issue 25: a `SECUREPUSH_*` variable no setting declares (a typo) never passes silently for a setting.
@Suite("A set variable that is not a setting")
struct UndeclaredSettingTests {
    let logger = Logger(label: "test.undeclared")

    @Test("in development the service starts and warns once, naming the variable and the nearest setting")
    func warnsInDevelopment() async throws {
        let directory = TemporaryDirectory.processRootURL.appendingPathComponent("undeclared-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let service = try await ServiceProcess.start(
            "auth-service", name: "undeclared-auth",
            environment: ["SECUREPUSH_DATA_DIR": directory.path, "SECUREPUSH_MAX_BATH": "3"],
            portVariable: "SECUREPUSH_AUTH_PORT", logger: logger)
        let output = service.output
        await service.stop()
        let warnings = output.split(separator: "\n").filter { $0.contains("config.undeclared_variable") }
        #expect(warnings.count == 1, "\(output)")
        #expect(warnings.first?.contains("config.variable=SECUREPUSH_MAX_BATH") == true, "\(output)")
        #expect(warnings.first?.contains("config.did_you_mean=SECUREPUSH_MAX_BATCH") == true, "\(output)")
    }

    @Test("in production the service refuses to start: exit 1, one line naming the variable, one security event")
    func refusedInProduction() async throws {
        let directory = TemporaryDirectory.processRootURL.appendingPathComponent("undeclared-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (status, output) = try await ServiceProcess.runUntilExit(
            "dispatch-service",
            environment: [
                "SECUREPUSH_ENV": "production", "SECUREPUSH_DATA_DIR": directory.path, "SECUREPUSH_DISPATCH_PORT": "0",
                "SECUREPUSH_MAX_BATH": "3",
            ])
        #expect(status == 1)
        let lines = output.split(separator: "\n")
        #expect(
            lines.filter {
                $0 == "dispatch-service: configuration error: SECUREPUSH_MAX_BATH (did you mean SECUREPUSH_MAX_BATCH?) "
                    + "is not a SecurePush setting (docs/configuration.md lists them all)"
            }.count == 1, "\(output)")
        #expect(lines.filter { $0.contains("security.event=config.production.refused") }.count == 1, "\(output)")
        // Refused before anything was opened.
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("dispatch.sqlite").path))
    }
}
