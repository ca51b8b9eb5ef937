import Foundation
import SharedModels

/// An app as the `app` table keeps it, its credentials sealed (``AppCredentialSealer``).
public struct AppRecord: Sendable, Hashable {
    /// The app's id, e.g. `retail-ios`.
    public var id: String
    /// A name for people.
    public var displayName: String
    /// The credentials, sealed: `aes256gcm:<key id>:<base64>`.
    public var sealedCredentials: String
    /// The app's own limits (absent ones are the deployment's).
    public var limits: Apps.Limits
    /// The browser origins of the app's web pages, normalized.
    public var allowedOrigins: [String]
    public var createdAt: Date
    public var updatedAt: Date
    /// Grows with every change of the row; replicas rebuild an app's providers when it does.
    public var revision: Int64

    public init(
        id: String, displayName: String, sealedCredentials: String, limits: Apps.Limits = Apps.Limits(),
        createdAt: Date, updatedAt: Date, revision: Int64 = 1, allowedOrigins: [String] = []
    ) {
        self.allowedOrigins = allowedOrigins
        self.id = id
        self.displayName = displayName
        self.sealedCredentials = sealedCredentials
        self.limits = limits
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.revision = revision
    }

    /// Which row of app `id` a replica serves: its revision, and when it was created, so that an app deleted and
    /// created again between two refreshes (its revision starting over) is never taken for the one served.
    public struct Version: Sendable, Hashable {
        public var revision: Int64
        /// `created_at`, in milliseconds since 1970.
        public var createdAt: Int64
    }

    /// This record's version.
    public var version: Version {
        Version(revision: revision, createdAt: createdAt.millisecondsSince1970)
    }
}
