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
    /// - Parameter conflictHint: what to do when the name is taken.
    func reportingAuthErrors<T>(conflictHint: String, _ body: () async throws -> T) async throws -> T {
        try await explainingFailures(FailureContext(.local, role: .account, conflictHint: conflictHint)) {
            do {
                return try await body()
            } catch let error as any RPCErrorConvertible {
                throw error.rpcError
            }
        }
    }
}
