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
        /// Devices per user for this app; absent: the deployment's `SECUREPUSH_MAX_DEVICES_PER_USER`.
        public var maxDevicesPerUser: Int?
        /// Grows with every change; absent for the environment's app.
        public var revision: Int64?
        public var createdAt: Date?
        public var updatedAt: Date?

        public init(
            appId: String, displayName: String, source: String, fingerprints: [String: String] = [:],
            maxDevicesPerUser: Int? = nil, revision: Int64? = nil, createdAt: Date? = nil, updatedAt: Date? = nil
        ) {
            self.appId = appId
            self.displayName = displayName
            self.source = source
            self.fingerprints = fingerprints
            self.maxDevicesPerUser = maxDevicesPerUser
            self.revision = revision
            self.createdAt = createdAt
            self.updatedAt = updatedAt
        }
    }
}
