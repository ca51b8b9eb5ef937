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

    @Argument(help: "the service's base URL, e.g. http://127.0.0.1:8081 (`securepush up`) or https://localhost:8081")
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
            // Container health checks treat any non-zero exit as unhealthy, and Docker reserves 2: always 1 here.
            let failure =
                ServiceReachability.classify(error, url: url).failure(service: "the service", url: url)
                ?? CLIError("\(url): \(error)")
            throw CLIError(failure.what, hint: failure.hint, exitCode: .refused, detail: failure.detail)
        }
        if !quiet {
            let checks = health.checks.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            emit("\(health.service) \(health.status) \(checks)")
        }
        if !health.isReady {
            if quiet { throw ExitCode.failure }
            throw CLIError(
                "\(health.service) is not ready", hint: "the failing checks above say why; its log says more",
                exitCode: .refused)
        }
    }
}
