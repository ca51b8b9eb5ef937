import ArgumentParser
import Foundation
import Logging
import SecurePushClient

/// Where the services under test are and how the benchmark authenticates as an app backend.
struct BenchmarkOptions: ParsableArguments {
    @Option(help: "auth base URL, e.g. http://127.0.0.1:18081")
    var auth: String

    @Option(help: "push-dispatch base URL")
    var dispatch: String

    @Option(help: "client id with scope push:send (see `securepush clients add`)")
    var clientId: String

    @Option(help: "file holding that client's secret")
    var clientSecretFile: String

    @Option(help: "where to write the JSON result (stdout when omitted)")
    var out: String?

    /// The client secret, trimmed.
    func clientSecret() throws -> String {
        let text = try String(contentsOfFile: clientSecretFile, encoding: .utf8)
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The app backend's client: `auth.clientToken` with these credentials, then `push.send` to push-dispatch.
    func makeBackend(logger: Logger) throws -> SecurePushBackend {
        try SecurePushBackend(
            authURL: auth, dispatchURL: dispatch, clientID: clientId, clientSecret: try clientSecret(), logger: logger)
    }

    /// Writes `result` as pretty JSON to `--out`, or stdout.
    func write(_ result: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.keyEncodingStrategy = .convertToSnakeCase  // like the rest of the benchmark results
        let data = try encoder.encode(result)
        if let out {
            try data.write(to: URL(fileURLWithPath: out))
        } else {
            FileHandle.standardOutput.write(data + Data("\n".utf8))
        }
    }
}

/// Failures that make a benchmark run meaningless: reported, and the process exits non-zero.
struct BenchmarkFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension Logger {
    /// The benchmark's own logger: warnings and errors to stderr.
    static func benchmark(_ label: String) -> Logger {
        var logger = Logger(label: label)
        logger.logLevel = .warning
        return logger
    }
}

/// Prints a progress line to stderr (stdout may carry the JSON result).
func progress(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}
