extension Devices {
    /// `devices.eraseUser {userId}` (scope `users:erase`, only in tokens auth signs for itself) → `{erased,
    /// deviceIds}`: deletes the user's devices and pending verifications, the sends to them (scheduled ones too) with
    /// their delivery records, idempotency keys and webhook events, ends their event streams, and forgets them as a
    /// recipient on every replica. Idempotent.
    public enum EraseUser: RPCMethod {
        public static let name = "devices.eraseUser"

        public struct Params: Codable, Sendable, Hashable {
            public var userId: String
            public init(userId: String) { self.userId = userId }
        }

        public struct Result: Codable, Sendable, Hashable {
            /// Rows deleted, by kind (`devices`, `verifications`, `sends`, `deliveries`, `idempotencyKeys`,
            /// `webhookEvents`).
            public var erased: [String: Int]
            /// Every device id of the user push-dispatch still knew (for `store.eraseUser`).
            public var deviceIds: [String]
            public init(erased: [String: Int], deviceIds: [String]) {
                self.erased = erased
                self.deviceIds = deviceIds
            }
        }
    }
}
