import Foundation

extension Apps {
    /// `apps.rotateCredentials {appId, credentials}` (scope `apps:admin`) → the app: the credentials of each platform
    /// given replace that platform's (the others are kept). Every replica uses them within
    /// `SECUREPUSH_APPS_REFRESH_INTERVAL`; attempts in flight finish with the old ones.
    public enum RotateCredentials: RPCMethod {
        public static let name = "apps.rotateCredentials"

        public struct Params: Codable, Sendable, Hashable {
            public var appId: String
            public var credentials: Credentials
            public init(appId: String, credentials: Credentials) {
                self.appId = appId
                self.credentials = credentials
            }
        }

        public typealias Result = AppInfo
    }
}
