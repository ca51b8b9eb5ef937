import Foundation
import HTTP2Client
import SecurePushClient

/// Why a service cannot be reached at a URL, told apart so the hint can name the fix.
enum ServiceReachability: Equatable {
    /// It answers `GET /health` (ready or not).
    case reachable
    /// Nothing answers: not started, wrong host or port, or a firewall.
    case noAnswer(String)
    /// The URL says `https` but the service speaks cleartext HTTP/2 (as `securepush up` does).
    case cleartextServer(String)
    /// The URL says `http` but the service speaks TLS.
    case tlsServer(String)
    /// TLS failed otherwise: usually a certificate the CLI does not trust.
    case untrustedCertificate(String)
    /// Something answers that is not a SecurePush service.
    case notSecurePush(String)

    /// Probes `GET <url>/health` once, briefly.
    static func probe(_ url: String, caFile: String?) async -> ServiceReachability {
        do {
            _ = try await ServiceHealthCheck.check(
                baseURL: url, caFile: caFile, timeout: .seconds(3), logger: cliLogger())
            return .reachable
        } catch {
            return classify(error, url: url)
        }
    }

    /// Classifies a failed health check of `url`.
    static func classify(_ error: any Error, url: String) -> ServiceReachability {
        let detail = "\(error)"
        let secure = url.lowercased().hasPrefix("https:")
        if let error = error as? HTTP2ClientError {
            if error == .tlsFailure {
                return detail.contains("WRONG_VERSION_NUMBER")
                    ? .cleartextServer(detail) : .untrustedCertificate(detail)
            }
            if !secure, error == .connectionClosed || error == .timeout { return .tlsServer(detail) }
            if error == .invalidURL { return .notSecurePush(detail) }
            return .noAnswer(detail)
        }
        if error is ServiceHealthCheckError { return .notSecurePush(detail) }
        return .noAnswer(detail)
    }

    /// The error for a service that cannot be reached at `url`, or `nil` when it can.
    func failure(service: String, url: String) -> CLIError? {
        let other = url.replacingOccurrences(of: "https://", with: "http://")
        switch self {
        case .reachable:
            return nil
        case .noAnswer(let detail):
            let setting = FailureContext.setting(of: service)
            let pointer = setting.map { " or set \($0.variable) (or \($0.flag)) to where \(service) runs" } ?? ""
            return CLIError(
                "cannot reach \(service) at \(url)",
                hint: "start the services with `securepush up` (in another terminal)\(pointer)",
                exitCode: .unreachable, detail: detail)
        case .cleartextServer(let detail):
            return CLIError(
                "\(service) at \(url) does not speak TLS: it serves cleartext HTTP/2 (as `securepush up` does)",
                hint: "use \(other)", exitCode: .unreachable, detail: detail)
        case .tlsServer(let detail):
            return CLIError(
                "\(service) at \(url) did not answer cleartext HTTP/2: it may serve TLS",
                hint: "use \(url.replacingOccurrences(of: "http://", with: "https://")) and trust its CA with "
                    + "--ca-file or SECUREPUSH_CA_FILE", exitCode: .unreachable, detail: detail)
        case .untrustedCertificate(let detail):
            return CLIError(
                "TLS with \(service) at \(url) failed: its certificate is not trusted or does not name this host",
                hint:
                    "trust its CA with --ca-file or SECUREPUSH_CA_FILE (compose: copy ca.pem out of the certs volume)",
                exitCode: .unreachable, detail: detail)
        case .notSecurePush(let detail):
            return CLIError(
                "\(url) answers, but not as a SecurePush service",
                hint: "check the URL's host and port", exitCode: .unreachable, detail: detail)
        }
    }
}
