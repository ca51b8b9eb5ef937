import ArgumentParser
import AuthService
import ServiceCore
import SharedModels

/// `--data-dir` of the commands that work on auth's database directly (`clients create`, `users create`).
struct AuthDatabaseOptions: ParsableArguments {
    @Option(help: "data directory holding auth.sqlite (env SECUREPUSH_DATA_DIR; default ./.securepush)")
    var dataDir: String?

    /// Auth's configuration from the environment, with `--data-dir` on top.
    func configuration() throws -> AuthConfiguration {
        var environment = ServiceEnvironment()
        if let dataDir { environment.values["SECUREPUSH_DATA_DIR"] = dataDir }
        return try AuthConfiguration(environment: environment)
    }

    /// Runs `body`, explaining auth's domain errors as the CLI explains RPC errors (`error:` and `hint:`).
    /// - Parameters:
    ///   - conflictHint: what to do when the name is taken.
    ///   - flags: the command's option for each field a `-32602` may name.
    func reportingAuthErrors<T>(
        conflictHint: String, flags: [String: String] = [:], _ body: () async throws -> T
    ) async throws -> T {
        var context = FailureContext(.local, role: .account, conflictHint: conflictHint)
        context.flags = flags
        return try await explainingFailures(context) {
            do {
                return try await body()
            } catch let error as any RPCErrorConvertible {
                throw error.rpcError
            }
        }
    }
}
