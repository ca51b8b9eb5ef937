import Foundation

extension Apps {
    /// `apps.create {appId, displayName, credentials, limits?, allowedOrigins?}` (scope `apps:admin`) → the app. An id
    /// that exists (or `default`) is `-32009`; credentials that do not configure a working provider are `-32602`
    /// naming `credentials`.
    public enum Create: RPCMethod {
        public static let name = "apps.create"

        public struct Params: Codable, Sendable, Hashable {
            /// 2 to 64 characters of `a-z`, `0-9` and `-`.
            public var appId: String
            public var displayName: String
            public var credentials: Credentials
            public var limits: Limits?
            /// The browser origins of the app's web pages (`https://…`; `http://` for loopback only): allowed by CORS
            /// beside `SECUREPUSH_CORS_ORIGINS`, and the only ones a browser may register the app's devices from.
            public var allowedOrigins: [String]?
            public init(
                appId: String, displayName: String, credentials: Credentials, limits: Limits? = nil,
                allowedOrigins: [String]? = nil
            ) {
                self.allowedOrigins = allowedOrigins
                self.appId = appId
                self.displayName = displayName
                self.credentials = credentials
                self.limits = limits
            }
        }

        public typealias Result = AppInfo
    }
}
