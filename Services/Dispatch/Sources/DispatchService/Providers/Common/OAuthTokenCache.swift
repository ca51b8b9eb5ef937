import Foundation

/// Holds one OAuth access token and reuses it until shortly before it expires.
///
/// Concurrent callers share one fetch, so a burst of deliveries costs one token request. A provider that gets 401
/// for a token calls `invalidate(_:)` with it and asks again; only that token is dropped, so several deliveries
/// failing with the same stale token trigger a single refetch.
actor OAuthTokenCache {
    private let fetch: @Sendable () async throws -> OAuthAccessToken
    private let now: @Sendable () -> Date
    private let refreshMargin: TimeInterval
    private var cached: (value: String, usableUntil: Date)?
    private var inFlight: Task<(value: String, usableUntil: Date), any Error>?

    /// - Parameters:
    ///   - refreshMargin: how long before expiry a token stops being handed out (at most half its lifetime).
    ///   - now: the clock (tests move it instead of sleeping).
    ///   - fetch: requests a new token from the endpoint.
    init(
        refreshMargin: TimeInterval = 60,
        now: @escaping @Sendable () -> Date,
        fetch: @escaping @Sendable () async throws -> OAuthAccessToken
    ) {
        self.refreshMargin = refreshMargin
        self.now = now
        self.fetch = fetch
    }

    /// A token that is still good for at least the refresh margin; fetches one when there is none.
    func token() async throws -> String {
        if let cached, now() < cached.usableUntil { return cached.value }
        if let inFlight { return try await inFlight.value.value }
        let task = Task { [fetch, now, refreshMargin] in
            let requestedAt = now()
            let token = try await fetch()
            // A short-lived token is still used for half its life rather than refetched on every call.
            let margin = min(refreshMargin, token.lifetime / 2)
            return (value: token.value, usableUntil: requestedAt.addingTimeInterval(token.lifetime - margin))
        }
        inFlight = task
        defer { inFlight = nil }
        let fresh = try await task.value
        cached = fresh
        return fresh.value
    }

    /// Forgets `token` if it is the cached one (a service answered 401 for it).
    func invalidate(_ token: String) {
        if cached?.value == token { cached = nil }
    }
}
