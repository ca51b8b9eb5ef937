/// The body of `GET /health`.
public struct ServiceHealth: Codable, Sendable, Hashable {
    /// `"ok"` or `"unavailable"`.
    public var status: String
    /// `auth`, `notification-store` or `push-dispatch`.
    public var service: String
    /// Each readiness check by name (`database`, `keys`, …) with `"ok"` or the reason it is not.
    public var checks: [String: String]

    public init(status: String, service: String, checks: [String: String]) {
        self.status = status
        self.service = service
        self.checks = checks
    }

    /// Whether every check passed.
    public var isReady: Bool { status == "ok" }
}
