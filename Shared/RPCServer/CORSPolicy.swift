import HTTP2Core

/// Which browser origins may call a service (`SECUREPUSH_CORS_ORIGINS`), and the CORS headers that lets them.
///
/// An allowed origin's requests get `Access-Control-Allow-Origin` naming it (never `*`: calls carry an
/// `Authorization` header), and its preflight (`OPTIONS` with `Access-Control-Request-Method`) gets 204 with the
/// methods and request headers our clients send. Another origin's preflight gets 403, its `POST` too (unless it is
/// the service's own origin), and its `GET` no CORS header, so the browser keeps the answer from the page.
public struct CORSPolicy: Sendable, Hashable {
    /// The request headers a browser client may send: the token, JSON, the device proof and trace context.
    public static let allowedRequestHeaders =
        "Authorization, Content-Type, SecurePush-Device-Proof, traceparent, tracestate"
    /// The response headers a page may read besides the CORS-safelisted ones.
    public static let exposedHeaders = "WWW-Authenticate, Retry-After"
    /// How long a browser may cache a preflight's answer, in seconds.
    public static let preflightMaxAge = 600

    /// The allowed origins, normalized (``normalize(_:)``).
    public let origins: Set<String>
    /// Every origin is allowed (`*`; development only).
    public let allowsAnyOrigin: Bool

    /// A policy allowing exactly `origins` (already normalized), or any origin.
    public init(origins: Set<String>, allowsAnyOrigin: Bool = false) {
        self.origins = origins
        self.allowsAnyOrigin = allowsAnyOrigin
    }

    /// No browser origin is allowed (the production default).
    public static let none = CORSPolicy(origins: [])

    /// Whether any origin is allowed at all (when not, no CORS work is done per request).
    public var isEnabled: Bool { allowsAnyOrigin || !origins.isEmpty }

    /// Whether `origin` (an `Origin` header's value) may read answers. `null` (sandboxed frames, `file:` pages,
    /// redirects) is never allowed, not even by `*`.
    public func allows(_ origin: String) -> Bool {
        let origin = origin.lowercased()
        guard origin != "null" else { return false }
        return allowsAnyOrigin || origins.contains(origin)
    }

    /// The headers every answer to an allowed `origin` carries.
    public func responseHeaders(origin: String) -> HTTP2Headers {
        [
            "access-control-allow-origin": origin,
            "access-control-expose-headers": Self.exposedHeaders,
            "vary": "Origin",
        ]
    }

    /// The answer to a preflight from `origin`: 204 with what may be sent when it is allowed (by this policy, or
    /// `allowed` as the caller decided it), else 403.
    public func preflightResponse(origin: String, allowed: Bool? = nil) -> HTTP2Response {
        guard allowed ?? allows(origin) else {
            return HTTP2Response(
                status: 403, headers: ["content-type": "text/plain; charset=utf-8", "vary": "Origin"],
                body: .init(string: "origin not allowed (SECUREPUSH_CORS_ORIGINS)\n"))
        }
        return HTTP2Response(
            status: 204,
            headers: [
                "access-control-allow-origin": origin,
                "access-control-allow-methods": "GET, POST, OPTIONS",
                "access-control-allow-headers": Self.allowedRequestHeaders,
                "access-control-max-age": String(Self.preflightMaxAge),
                "vary": "Origin",
            ])
    }

    /// The origin an entry of `SECUREPUSH_CORS_ORIGINS` names, in the form browsers send (`scheme://host[:port]`,
    /// lowercase, without the scheme's default port); `nil` when it is not one (a path, a query, user info, another
    /// scheme, an empty host, a bad port).
    public static func normalize(_ entry: String) -> String? {
        let text = entry.lowercased()
        let scheme: String
        let defaultPort: Int
        if text.hasPrefix("https://") {
            (scheme, defaultPort) = ("https", 443)
        } else if text.hasPrefix("http://") {
            (scheme, defaultPort) = ("http", 80)
        } else {
            return nil
        }
        let authority = text.dropFirst(scheme.count + 3)
        guard !authority.isEmpty, !authority.contains(where: { "/?#@ \t".contains($0) }) else { return nil }
        var host = Substring(authority)
        var port: Int?
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return nil }
            let rest = host[host.index(after: close)...]
            host = host[...close]
            if !rest.isEmpty {
                guard rest.hasPrefix(":"), let value = Int(rest.dropFirst()) else { return nil }
                port = value
            }
        } else if let colon = host.lastIndex(of: ":") {
            guard let value = Int(host[host.index(after: colon)...]) else { return nil }
            port = value
            host = host[..<colon]
        }
        guard !host.isEmpty, host != "[]" else { return nil }
        if let port {
            guard (1...65535).contains(port) else { return nil }
            if port != defaultPort { return "\(scheme)://\(host):\(port)" }
        }
        return "\(scheme)://\(host)"
    }

    /// Whether a normalized origin is a loopback one (`localhost`, `127.0.0.0/8`, `[::1]`), which may be `http`.
    public static func isLoopback(_ origin: String) -> Bool {
        guard let start = origin.range(of: "://")?.upperBound else { return false }
        var host = origin[start...]
        if host.hasPrefix("[") {
            return host.hasPrefix("[::1]")
        }
        if let colon = host.firstIndex(of: ":") { host = host[..<colon] }
        if host == "localhost" || host.hasSuffix(".localhost") { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false).map { UInt8($0) }
        return octets.count == 4 && octets.allSatisfy { $0 != nil } && octets[0] == 127
    }
}
