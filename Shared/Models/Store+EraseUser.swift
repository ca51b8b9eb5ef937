extension Store {
    /// `store.eraseUser {userId, deviceIds?}` (scope `users:erase`, only in tokens auth signs for itself) →
    /// `{erased}`: deletes every notification of the user (held ones too), every sealed copy, receipt, proof record and
    /// device revocation of them or of `deviceIds` (the user's devices, as push-dispatch knew them). Idempotent.
    public enum EraseUser: RPCMethod {
        public static let name = "store.eraseUser"
        /// Most device ids one call may name.
        public static let maxDeviceIDs = 10_000

        public struct Params: Codable, Sendable, Hashable {
            public var userId: String
            /// The user's devices, current and former (push-dispatch's answer to `devices.eraseUser`).
            public var deviceIds: [String]?
            public init(userId: String, deviceIds: [String]? = nil) {
                self.userId = userId
                self.deviceIds = deviceIds
            }
        }

        public struct Result: Codable, Sendable, Hashable {
            /// Rows deleted, by kind (`notifications`, `sealedCopies`, `receipts`, `proofs`, `revocations`).
            public var erased: [String: Int]
            public init(erased: [String: Int]) { self.erased = erased }
        }
    }
}
