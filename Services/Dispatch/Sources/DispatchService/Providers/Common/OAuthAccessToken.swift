import Foundation

/// A bearer token from an OAuth 2.0 token endpoint (Google's for FCM, Microsoft's for WNS) and how long it lives.
struct OAuthAccessToken: Sendable, Hashable {
    /// The value sent as `Authorization: Bearer <value>`.
    var value: String
    /// Seconds from issue to expiry, as the endpoint's `expires_in` said.
    var lifetime: TimeInterval
}
