import Foundation

extension Apps {
    /// An app as `apps.*` show it: never its secrets.
    public struct AppInfo: Codable, Sendable, Hashable {
        /// The app's id, e.g. `retail-ios`.
        public var appId: String
        /// A name for people.
        public var displayName: String
        /// `environment` (the app `default`, from the `SECUREPUSH_*` provider variables: read-only) or `database`.
        public var source: String
        /// Per platform configured by credentials, its public identifiers and the first 16 hex digits of the SHA-256
        /// of its secret (empty for the environment's app).
        public var fingerprints: [String: String]
        /// The app's own limits (absent ones are the deployment's).
        public var limits: Limits
        /// The browser origins of the app's web pages; absent: none.
        public var allowedOrigins: [String]?
        /// Grows with every change; absent for the environment's app.
        public var revision: Int64?
        public var createdAt: Date?
        public var updatedAt: Date?
        /// Set by `apps.list` for an app whose credentials the answering replica cannot open (its key file lacks
        /// their key): why, without secrets. Such an app is not served by that replica, and `fingerprints` is empty.
        public var unusable: String?

        public init(
            appId: String, displayName: String, source: String, fingerprints: [String: String] = [:],
            limits: Limits = Limits(), allowedOrigins: [String]? = nil, revision: Int64? = nil, createdAt: Date? = nil,
            updatedAt: Date? = nil
        ) {
            self.allowedOrigins = allowedOrigins
            self.appId = appId
            self.displayName = displayName
            self.source = source
            self.fingerprints = fingerprints
            self.limits = limits
            self.revision = revision
            self.createdAt = createdAt
            self.updatedAt = updatedAt
        }
    }
}
