import Foundation
import SecurePushClient
import SharedModels

extension CLIError {
    /// Turns any failure of a call into what happened and what to do next; `error.detail` keeps the original.
    static func explaining(_ error: any Error, in context: FailureContext) async -> CLIError {
        let detail = String(describing: error)
        switch error {
        case let error as CLIError:
            return error
        case let error as RPCError:
            return await explaining(error, in: context)
        case let error as SecurePushClientError where error == .notSignedIn:
            return CLIError(
                "not signed in", hint: "sign in with `securepush login --username <name>`", exitCode: .signInNeeded,
                detail: detail)
        case let error as SecurePushClientError
        where error == .streamRefused(status: 403) || error == .streamRefused(status: 404):
            return CLIError(
                "push-dispatch does not know the device saved with this session (it was removed, or belongs to "
                    + "another account)",
                hint: "register a new one with `securepush listen --new-device`", detail: detail)
        default:
            return CLIError(
                "unexpected failure: \(error)", hint: "run again with --verbose and report what it prints",
                detail: String(reflecting: error))
        }
    }

    private static func explaining(_ error: RPCError, in context: FailureContext) async -> CLIError {
        let detail = "JSON-RPC error \(error.code): \(error.message)"
        switch error.code {
        case RPCErrorCode.unavailable:
            let service = dependency(of: error)
            if let url = context.url(of: service),
                let failure = await ServiceReachability.probe(url, caFile: context.endpoints.caFile).failure(
                    service: service, url: url)
            {
                return failure.with(detail: [detail, failure.detail].compactMap { $0 }.joined(separator: "; "))
            }
            // The CLI reaches it: a service between us and it does not.
            return CLIError(
                "a service could not reach \(service): \(reason(of: error, after: "\(service): "))",
                hint: "check that \(service) is running and that each service's SECUREPUSH_*_URL points at it; "
                    + "its log says more",
                exitCode: .unreachable, detail: detail)
        case RPCErrorCode.unauthenticated:
            switch context.role {
            case .account:
                return CLIError(
                    "invalid username or password",
                    hint: "check both, or create the account with `securepush register --username <name>`",
                    exitCode: .signInNeeded, detail: detail)
            case .device:
                return CLIError(
                    "your session has expired or was revoked",
                    hint: "sign in again with `securepush login --username <name>`", exitCode: .signInNeeded,
                    detail: detail)
            case .backend(let source):
                return CLIError(
                    "auth refused the backend client's credentials (\(source))",
                    hint: "pass --client-id and --client-secret, or set SECUREPUSH_CLIENT_ID and "
                        + "SECUREPUSH_CLIENT_SECRET, for a client created with `securepush clients create`",
                    exitCode: .signInNeeded, detail: detail)
            }
        case RPCErrorCode.forbidden:
            let scope = string(error.data?["requiredScope"])
            return CLIError(
                scope.map { "not allowed: this needs scope \($0)" } ?? "not allowed: \(error.message)",
                hint: scope.map { "use a client that has it (`securepush clients create --id <id> --scope \($0)`)" },
                detail: detail)
        case RPCErrorCode.notFound:
            return CLIError(
                context.notFound ?? "not found: \(reason(of: error, after: "Not found: "))", hint: context.notFoundHint,
                detail: detail)
        case RPCErrorCode.conflict:
            return CLIError(
                lowercasedFirst(reason(of: error, after: "Conflict: ")), hint: context.conflictHint, detail: detail)
        case RPCErrorCode.rateLimited:
            let seconds = int(error.data?["retryAfterSeconds"])
            return CLIError(
                "too many attempts",
                hint: seconds.map { "wait \($0) seconds, then try again" } ?? "wait, then try again",
                detail: detail)
        case RPCErrorCode.invalidParams:
            if let field = string(error.data?["field"]), let flag = context.flags[field] {
                let why = reason(of: error, after: "Invalid params: '\(field)' ")
                return CLIError(
                    "invalid \(flag): \(why)", hint: "`securepush <command> --help` lists what each option accepts",
                    detail: detail)
            }
            return CLIError(
                "invalid input: \(reason(of: error, after: "Invalid params: "))",
                hint: "`securepush <command> --help` lists what each option accepts", detail: detail)
        default:
            return CLIError(
                error.message, hint: "run again with --verbose and report what it prints", detail: detail)
        }
    }

    /// The service a `-32050` names (in its data, else its message).
    private static func dependency(of error: RPCError) -> String {
        if let name = string(error.data?["dependency"]) { return name }
        let reason = Self.reason(of: error, after: "Dependency unavailable: ")
        return String(reason.prefix { $0 != ":" })
    }

    /// The message without its standard prefix.
    private static func reason(of error: RPCError, after prefix: String) -> String {
        guard let range = error.message.range(of: prefix) else { return error.message }
        return String(error.message[range.upperBound...])
    }

    private static func string(_ value: JSONValue?) -> String? {
        if case .string(let text) = value { text } else { nil }
    }

    private static func int(_ value: JSONValue?) -> Int64? {
        if case .int(let number) = value { number } else { nil }
    }

    private static func lowercasedFirst(_ text: String) -> String {
        text.prefix(1).lowercased() + text.dropFirst()
    }

    /// A copy with another detail.
    func with(detail: String) -> CLIError {
        var copy = self
        copy.detail = detail
        return copy
    }
}

/// Runs `body`, turning every failure into a ``CLIError`` that says what happened and what to do next.
@discardableResult
func explainingFailures<T>(_ context: FailureContext, _ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch {
        throw await CLIError.explaining(error, in: context)
    }
}
