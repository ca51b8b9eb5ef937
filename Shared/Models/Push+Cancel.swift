extension Push {
    /// `push.cancel {notificationId}` (scope `push:send`, the sending client only) → `{}`: withdraws a scheduled send
    /// before it is due; it is never pushed, and the store's copy is deleted. A repeated cancel answers `{}`; once the
    /// send started (it was due) `-32009 Conflict: already sent`; a notification the client did not send `-32004`. A
    /// cancel racing the due time has exactly one outcome: cancelled, or sent.
    public enum Cancel: RPCMethod {
        public static let name = "push.cancel"

        public struct Params: Codable, Sendable, Hashable {
            /// A scheduled notification this client's `push.send` returned.
            public var notificationId: String
            public init(notificationId: String) { self.notificationId = notificationId }
        }

        public typealias Result = Empty
    }
}
