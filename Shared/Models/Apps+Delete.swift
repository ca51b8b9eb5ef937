import Foundation

extension Apps {
    /// `apps.delete {appId, confirm}` (scope `apps:admin`) → `{}`: `confirm` must equal `appId` (else `-32602` naming
    /// `confirm`). The app's devices are removed and their undelivered notifications fail.
    public enum Delete: RPCMethod {
        public static let name = "apps.delete"

        public struct Params: Codable, Sendable, Hashable {
            public var appId: String
            public var confirm: String
            public init(appId: String, confirm: String) {
                self.appId = appId
                self.confirm = confirm
            }
        }

        public typealias Result = Empty
    }
}
