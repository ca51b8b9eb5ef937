import Foundation
import ServiceCore
import SharedModels

/// How push-dispatch reaches the Windows Push Notification Service for `platform: "wns"` devices.
public struct WNSConfiguration: Sendable {
    /// WNS's OAuth token endpoint (`SECUREPUSH_WNS_TOKEN_URL` replaces it).
    public static let defaultTokenURL = SettingCatalog.wnsTokenURL.defaultValue!
    /// The scope WNS access tokens are requested for (`SECUREPUSH_WNS_SCOPE` replaces it).
    public static let defaultScope = SettingCatalog.wnsScope.defaultValue!
    /// Real channel URIs live under this domain (`https://*.notify.windows.com/...`).
    public static let channelHostSuffix = ".notify.windows.com"

    /// The app's client id: its Package SID (`ms-app://s-1-15-2-…`) or Azure application id.
    public var clientID: String
    /// The app's client secret.
    public var clientSecret: String
    /// Where access tokens come from.
    public var tokenURL: String
    /// The `scope` of the token request.
    public var scope: String
    /// A PEM file of CA certificates to trust instead of the system store (private test CAs).
    public var caFile: String?
    /// Accept channel URIs on any `https://` host, not only `*.notify.windows.com` (tests and sandboxes only:
    /// channel URIs come from devices, and every request to one carries our access token).
    public var allowAnyHost: Bool
    /// How long one request (connect, send, read the answer) may take before the attempt counts as a retry.
    public var requestTimeout: Duration
    /// How long to keep trying to open a connection (refused connections are retried with backoff meanwhile).
    public var connectTimeout: Duration

    /// A configuration for tests and embedding.
    public init(
        clientID: String,
        clientSecret: String,
        tokenURL: String = WNSConfiguration.defaultTokenURL,
        scope: String = WNSConfiguration.defaultScope,
        caFile: String? = nil,
        allowAnyHost: Bool = false,
        requestTimeout: Duration = .seconds(30),
        connectTimeout: Duration = .seconds(10)
    ) throws {
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.tokenURL = try RemoteProviderHTTP.checkedHTTPSURL(tokenURL, setting: "SECUREPUSH_WNS_TOKEN_URL")
        self.scope = scope
        self.caFile = caFile
        self.allowAnyHost = allowAnyHost
        self.requestTimeout = requestTimeout
        self.connectTimeout = connectTimeout
    }

    /// Reads `SECUREPUSH_WNS_*`; `nil` when the client id, the secret and the other WNS variables are all unset.
    ///
    /// `SECUREPUSH_WNS_CLIENT_ID` and `SECUREPUSH_WNS_CLIENT_SECRET` (required together),
    /// `SECUREPUSH_WNS_TOKEN_URL` (default `https://login.live.com/accesstoken.srf`), `SECUREPUSH_WNS_SCOPE`
    /// (default `notify.windows.com`), `SECUREPUSH_WNS_CA_FILE` (default: the system trust store) and
    /// `SECUREPUSH_WNS_ALLOW_ANY_HOST` (`1` accepts channel URIs on any https host; refused when
    /// `SECUREPUSH_ENV=production`).
    public static func fromEnvironment(_ environment: ServiceEnvironment) throws -> WNSConfiguration? {
        let clientID = environment.string("SECUREPUSH_WNS_CLIENT_ID")
        let clientSecret = environment.string("SECUREPUSH_WNS_CLIENT_SECRET")
        guard let clientID, let clientSecret else {
            let related = [
                "SECUREPUSH_WNS_CLIENT_ID", "SECUREPUSH_WNS_CLIENT_SECRET", "SECUREPUSH_WNS_TOKEN_URL",
                "SECUREPUSH_WNS_SCOPE", "SECUREPUSH_WNS_CA_FILE", "SECUREPUSH_WNS_ALLOW_ANY_HOST",
            ]
            if let set = related.first(where: { environment.string($0) != nil }) {
                throw ConfigurationError(
                    "\(set) is set but SECUREPUSH_WNS_CLIENT_ID and SECUREPUSH_WNS_CLIENT_SECRET are not both set: "
                        + "WNS needs the app's client id and secret")
            }
            return nil
        }
        let allowAnyHost = try flag(environment, "SECUREPUSH_WNS_ALLOW_ANY_HOST")
        if allowAnyHost && environment.isProduction {
            throw ConfigurationError(
                "SECUREPUSH_WNS_ALLOW_ANY_HOST=1 is refused when SECUREPUSH_ENV=production: devices could make "
                    + "push-dispatch send its WNS access token to any host")
        }
        return try WNSConfiguration(
            clientID: clientID,
            clientSecret: clientSecret,
            tokenURL: environment.string(SettingCatalog.wnsTokenURL)!,
            scope: environment.string(SettingCatalog.wnsScope)!,
            caFile: try RemoteProviderHTTP.checkedCAFile(
                environment.string("SECUREPUSH_WNS_CA_FILE"), variable: "SECUREPUSH_WNS_CA_FILE"),
            allowAnyHost: allowAnyHost
        )
    }

    /// The configuration of an app's WNS credentials (issue 27): the token URL, scope, CA file and
    /// `SECUREPUSH_WNS_ALLOW_ANY_HOST` are the deployment's.
    public static func forApp(_ credentials: AppCredentials.WNS, environment: ServiceEnvironment) throws
        -> WNSConfiguration
    {
        guard !credentials.packageSid.isEmpty, credentials.packageSid.utf8.count <= 512,
            !credentials.secret.isEmpty, credentials.secret.utf8.count <= 512
        else { throw ConfigurationError("wns.packageSid and wns.secret must each be 1 to 512 bytes") }
        let allowAnyHost = try flag(environment, "SECUREPUSH_WNS_ALLOW_ANY_HOST") && !environment.isProduction
        return try WNSConfiguration(
            clientID: credentials.packageSid, clientSecret: credentials.secret,
            tokenURL: environment.string(SettingCatalog.wnsTokenURL)!,
            scope: environment.string(SettingCatalog.wnsScope)!,
            caFile: try RemoteProviderHTTP.checkedCAFile(
                environment.string("SECUREPUSH_WNS_CA_FILE"), variable: "SECUREPUSH_WNS_CA_FILE"),
            allowAnyHost: allowAnyHost)
    }

    private static func flag(_ environment: ServiceEnvironment, _ name: String) throws -> Bool {
        switch environment.string(name)?.lowercased() {
        case nil, "0", "false", "no": return false
        case "1", "true", "yes": return true
        case let other?: throw ConfigurationError("\(name) must be 1 or 0, got '\(other)'")
        }
    }
}
