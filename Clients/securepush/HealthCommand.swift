import ArgumentParser
import Foundation
import SecurePushClient
import SharedModels

/// `securepush health`: the readiness probe for containers and scripts.
struct HealthCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "health",
        abstract: "Check a service's GET /health; exit 0 when it is ready, 1 when not or unreachable.",
        discussion: "Used as the container health check in compose/docker-compose.yml."
    )

    @Argument(help: "the service's base URL, e.g. https://localhost:8081")
    var url: String

    @Option(help: "PEM CA file to trust for https URLs (env SECUREPUSH_CA_FILE)")
    var caFile: String?

    @Option(help: "seconds to wait for the answer")
    var timeout: Int = 3

    @Flag(help: "print nothing")
    var quiet = false

    func run() async throws {
        let caFile =
            caFile ?? ProcessInfo.processInfo.environment["SECUREPUSH_CA_FILE"].flatMap { $0.isEmpty ? nil : $0 }
        let health: ServiceHealth
        do {
            health = try await ServiceHealthCheck.check(
                baseURL: url, caFile: caFile, timeout: .seconds(max(1, timeout)), logger: cliLogger())
        } catch {
            throw CLIError("\(url): \(error)")
        }
        if !quiet {
            let checks = health.checks.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            emit("\(health.service) \(health.status) \(checks)")
        }
        if !health.isReady { throw ExitCode.failure }
    }
}
