import ArgumentParser
import Foundation
import SecurePushClient

/// Where the services are: flags, else `SECUREPUSH_*_URL`, else the local defaults.
struct EndpointOptions: ParsableArguments {
    @Option(help: "auth base URL (env SECUREPUSH_AUTH_URL; default http://127.0.0.1:8081)")
    var authURL: String?
    @Option(help: "notification-store base URL (env SECUREPUSH_STORE_URL; default http://127.0.0.1:8082)")
    var storeURL: String?
    @Option(help: "push-dispatch base URL (env SECUREPUSH_DISPATCH_URL; default http://127.0.0.1:8083)")
    var dispatchURL: String?
    @Option(help: "PEM CA file to trust for https URLs (env SECUREPUSH_CA_FILE)")
    var caFile: String?

    var endpoints: SecurePushEndpoints {
        let environment = ProcessInfo.processInfo.environment
        func pick(_ flag: String?, _ variable: String, _ fallback: String) -> String {
            flag ?? environment[variable].flatMap { $0.isEmpty ? nil : $0 } ?? fallback
        }
        return SecurePushEndpoints(
            auth: pick(authURL, "SECUREPUSH_AUTH_URL", SecurePushEndpoints.local.auth),
            store: pick(storeURL, "SECUREPUSH_STORE_URL", SecurePushEndpoints.local.store),
            dispatch: pick(dispatchURL, "SECUREPUSH_DISPATCH_URL", SecurePushEndpoints.local.dispatch),
            caFile: caFile ?? environment["SECUREPUSH_CA_FILE"].flatMap { $0.isEmpty ? nil : $0 }
        )
    }
}

/// Where `login` keeps the session.
struct CredentialsOptions: ParsableArguments {
    @Option(help: "credentials file (env SECUREPUSH_CREDENTIALS; default ~/.securepush/credentials.json)")
    var credentials: String?

    var path: String {
        if let credentials { return credentials }
        if let variable = ProcessInfo.processInfo.environment["SECUREPUSH_CREDENTIALS"], !variable.isEmpty {
            return variable
        }
        return (Self.home as NSString).appendingPathComponent(".securepush/credentials.json")
    }

    /// `path`, with the home directory shown as `~`.
    var displayPath: String {
        path.hasPrefix(Self.home + "/") ? "~" + path.dropFirst(Self.home.count) : path
    }

    /// `$HOME` as the shell's `~` means it, else the account's home directory.
    private static var home: String {
        ProcessInfo.processInfo.environment["HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? FileManager.default.homeDirectoryForCurrentUser.path
    }
}
