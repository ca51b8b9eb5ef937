import Foundation

extension Apps {
    /// `apps.update {appId, displayName?, limits?, allowedOrigins?}` (each limit given replaces the app's) (scope `apps:admin`) → the app; `-32004` when there
    /// is none, `-32602` naming `appId` for the environment's app (read-only).
    public enum Update: RPCMethod {
        public static let name = "apps.update"

        public struct Params: Codable, Sendable, Hashable {
            public var appId: String
            public var displayName: String?
            public var limits: Limits?
            /// Replaces the app's browser origins (`[]`: none).
            public var allowedOrigins: [String]?
            public init(
                appId: String, displayName: String? = nil, limits: Limits? = nil, allowedOrigins: [String]? = nil
            ) {
                self.allowedOrigins = allowedOrigins
                self.appId = appId
                self.displayName = displayName
                self.limits = limits
            }
        }

        public typealias Result = AppInfo
    }
}
