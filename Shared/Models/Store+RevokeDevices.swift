import Foundation

extension Store {
    /// `store.revokeDevices {deviceIds, revocationId?}` (scope `store:write`) → `{deviceIds, sealedCopiesDeleted}`:
    /// push-dispatch tells the store that devices were unregistered, re-keyed, moved to another user or deactivated.
    ///
    /// The store deletes their sealed copies of every notification created until then and refuses their proofs for
    /// those notifications (`-32001 Unauthenticated: device revoked`); copies sealed later (to a re-keyed device's new
    /// key, or for a device's new owner) are unaffected. Idempotent: a call sent again with the same `revocationId`
    /// (push-dispatch's outbox retries until it is answered) changes nothing more for the devices it already revoked.
    public enum RevokeDevices: RPCMethod {
        public static let name = "store.revokeDevices"
        /// Most device ids one call may name.
        public static let maxDeviceIDs = 500

        public struct Params: Codable, Sendable, Hashable {
            /// The devices (UUIDs), 1 to ``RevokeDevices/maxDeviceIDs``, each named once.
            public var deviceIds: [String]
            /// Names this revocation (a UUID), so that a retry of it is recognised; absent: every call is a new one.
            public var revocationId: String?

            public init(deviceIds: [String], revocationId: String? = nil) {
                self.deviceIds = deviceIds
                self.revocationId = revocationId
            }
        }

        public struct Result: Codable, Sendable, Hashable {
            /// How many devices the call named.
            public var deviceIds: Int
            /// How many sealed copies it deleted (0 when it was a retry).
            public var sealedCopiesDeleted: Int

            public init(deviceIds: Int, sealedCopiesDeleted: Int) {
                self.deviceIds = deviceIds
                self.sealedCopiesDeleted = sealedCopiesDeleted
            }
        }
    }
}
