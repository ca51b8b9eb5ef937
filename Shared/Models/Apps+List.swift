import Foundation

extension Apps {
    /// `apps.list {}` (scope `apps:admin`) → `{apps}`: the environment's app `default` and every app in the
    /// database, by id.
    public enum List: RPCMethod {
        public static let name = "apps.list"

        public typealias Params = Empty

        public struct Result: Codable, Sendable, Hashable {
            public var apps: [AppInfo]
            public init(apps: [AppInfo]) {
                self.apps = apps
            }
        }
    }
}
