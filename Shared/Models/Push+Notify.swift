extension Push {
    /// `push.notify {notificationId}`: the JSON-RPC notification a device receives on its direct event stream.
    public enum Notify: RPCMethod {
        public static let name = "push.notify"

        public struct Params: Codable, Sendable, Hashable {
            /// The id to fetch from notification-store.
            public var notificationId: String
            /// The W3C `traceparent` of the send (when push-dispatch traces): send it back on `store.get` so the
            /// fetch joins the send's trace. Trace context only, nothing else; absent when not traced.
            public var traceparent: String?

            public init(notificationId: String, traceparent: String? = nil) {
                self.notificationId = notificationId
                self.traceparent = traceparent
            }
        }

        public typealias Result = Empty
    }
}

extension Push.Notify.Params: RPCDirectEncodable {
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("notificationId", notificationId)
        writer.member("traceparent", traceparent)
        writer.endObject()
    }
}
