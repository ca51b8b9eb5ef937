import Foundation

/// A signed-in user's tokens, kept by the device (the CLI stores it in a 0600 file).
public struct DeviceSession: Codable, Sendable, Hashable {
    public var userId: String
    public var accessToken: String
    /// Single use: every refresh returns a new one, which must replace this one.
    public var refreshToken: String
    public var accessTokenExpiresAt: Date

    public init(userId: String, accessToken: String, refreshToken: String, accessTokenExpiresAt: Date) {
        self.userId = userId
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.accessTokenExpiresAt = accessTokenExpiresAt
    }
}
