/// One versioned step of a service's PostgreSQL schema. Never edit a shipped migration; add the next version.
public struct PostgresMigration: Sendable {
    /// Unique within the service, applied in array order (`v1`, `v2`, …).
    public let version: String
    /// The statements, run in one transaction with the record that the version was applied.
    public let statements: [String]

    public init(_ version: String, _ statements: [String]) {
        self.version = version
        self.statements = statements
    }
}
