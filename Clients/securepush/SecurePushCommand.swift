import ArgumentParser
import Foundation

/// `securepush`: run the stack, and play a device or an app backend against it.
@main
struct SecurePushCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "securepush",
        abstract: "SecurePush: secure push notifications, self-hosted.",
        discussion: """
            Errors are printed as `error: <what happened>` and `hint: <what to do>`; add --verbose anywhere on the \
            command line to also print the underlying error. Exit codes: 0 ok, 1 usage mistake or refused, \
            2 a service unreachable, 3 sign-in needed, 4 `up` could not start (`health`: 1 when not ready or \
            unreachable).
            """,
        subcommands: [
            UpCommand.self, RegisterCommand.self, LoginCommand.self, ListenCommand.self, SendCommand.self,
            StatusCommand.self, CancelCommand.self, FetchCommand.self, DemoCommand.self, ClientsCommand.self,
            UsersCommand.self,
            StoreKeysCommand.self, CertsCommand.self, DevicesCommand.self, ConfigCommand.self, AppsCommand.self,
            WebhooksCommand.self, AuditCommand.self, HSMCommand.self,
            HealthCommand.self,
        ]
    )

    /// Parses and runs the command, printing every failure in one format and exiting with its documented code.
    static func main() async {
        var arguments = Array(CommandLine.arguments.dropFirst())
        let verbose = arguments.contains("--verbose")
        arguments.removeAll { $0 == "--verbose" }
        do {
            var command = try parseAsRoot(arguments)
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch let error as CLIError {
            fail(error, verbose: verbose)
        } catch let error as ExitCode {
            Foundation.exit(error.rawValue)
        } catch {
            guard exitCode(for: error) != .success else { exit(withError: error) }  // --help, --version
            fail(usageError(error), verbose: verbose)
        }
    }

    /// A parsing mistake (missing or unknown option, bad value) in the one format.
    private static func usageError(_ error: any Error) -> CLIError {
        let full = fullMessage(for: error)
        let help = full.split(separator: "\n").first { $0.contains("--help") }
            .flatMap { line in line.split(separator: "'").dropFirst().first.map(String.init) }
        return CLIError(
            message(for: error), hint: "run `\(help ?? "securepush --help")` for usage", exitCode: .refused,
            detail: full)
    }

    private static func fail(_ error: CLIError, verbose: Bool) -> Never {
        FileHandle.standardError.write(Data((error.lines(verbose: verbose).joined(separator: "\n") + "\n").utf8))
        Foundation.exit(error.exitCode.rawValue)
    }
}
