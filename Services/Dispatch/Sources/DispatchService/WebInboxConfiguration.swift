import Foundation
import RPCServer
import ServiceCore

/// Where the web inbox's page (and the browser SDK in it) reaches the services: the URLs a browser uses, which can
/// differ from the ones push-dispatch uses itself (behind a proxy, in compose). `GET /inbox/config.json` hands them
/// to the page, and the inbox's Content-Security-Policy allows connections to exactly these origins.
public struct WebInboxConfiguration: Sendable, Hashable {
    /// auth's URL as browsers reach it.
    public var authURL: String
    /// notification-store's URL as browsers reach it.
    public var storeURL: String
    /// push-dispatch's URL as browsers reach it; `nil`: the page's own origin.
    public var dispatchURL: String?

    /// The given URLs (tests, `securepush up`).
    public init(authURL: String, storeURL: String, dispatchURL: String? = nil) {
        self.authURL = authURL
        self.storeURL = storeURL
        self.dispatchURL = dispatchURL
    }

    /// `SECUREPUSH_INBOX_AUTH_URL`, `SECUREPUSH_INBOX_STORE_URL` (by default the peers' `SECUREPUSH_AUTH_URL` and
    /// `SECUREPUSH_STORE_URL`) and `SECUREPUSH_INBOX_DISPATCH_URL`; each must be an `http` or `https` URL.
    public init(environment: ServiceEnvironment) throws {
        func url(_ setting: TextSetting, fallback: TextSetting?) throws -> String? {
            let name = setting.setting.name
            guard let value = environment.string(setting) ?? fallback.flatMap({ environment.string($0) }) else {
                return nil
            }
            guard Self.origin(of: value) != nil else {
                throw ConfigurationError("\(name): '\(value.prefix(64))' is not an http:// or https:// URL")
            }
            return value
        }
        self.init(
            authURL: try url(SettingCatalog.inboxAuthURL, fallback: SettingCatalog.authURL)!,
            storeURL: try url(SettingCatalog.inboxStoreURL, fallback: SettingCatalog.storeURL)!,
            dispatchURL: try url(SettingCatalog.inboxDispatchURL, fallback: nil))
    }

    /// The body of `GET /inbox/config.json`.
    public var configJSON: Data {
        var object = ["authURL": authURL, "storeURL": storeURL]
        if let dispatchURL { object["dispatchURL"] = dispatchURL }
        return (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? Data("{}".utf8)
    }

    /// The inbox's Content-Security-Policy: its own files only, no inline script or style, no framing, and
    /// connections to itself and the services' origins.
    public var contentSecurityPolicy: String {
        let origins = [authURL, storeURL, dispatchURL].compactMap { $0.flatMap(Self.origin(of:)) }
        var connect = ["'self'"]
        for origin in origins where !connect.contains(origin) { connect.append(origin) }
        return [
            "default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self' data:",
            "connect-src \(connect.joined(separator: " "))", "worker-src 'self'", "manifest-src 'self'",
            "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'",
        ].joined(separator: "; ")
    }

    /// `scheme://host[:port]` of an `http` or `https` URL, `nil` for anything else.
    static func origin(of url: String) -> String? {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty,
            components.user == nil, components.password == nil
        else { return nil }
        let shownHost = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        // Spelled as CORS spells origins (lowercase, no default port): one normalization for both.
        return CORSPolicy.normalize("\(scheme)://\(shownHost)" + (components.port.map { ":\($0)" } ?? ""))
    }
}
