import Foundation

extension Apps {
    /// `apps.get {appId}` (scope `apps:admin`) → the app, with credential fingerprints; `-32004` when there is none.
    public enum Get: RPCMethod {
        public static let name = "apps.get"

        public struct Params: Codable, Sendable, Hashable {
            public var appId: String
            public init(appId: String) {
                self.appId = appId
            }
        }

        public typealias Result = AppInfo
    }
}
