import Foundation

extension Store {
    /// `store.putMany {items}` (scope `store:write`) → `{results}`: up to ``maxItems`` notifications stored in one
    /// transaction (all or none), each item as `store.put` takes it, each result in its item's place.
    ///
    /// An item with an `idempotencyKey` the same client stored before (and that has not expired) is not stored again:
    /// its result is the first notification's. push-dispatch derives one key per recipient of a `push.send`, so a
    /// retried send stores exactly one notification per recipient.
    public enum PutMany: RPCMethod {
        public static let name = "store.putMany"
        /// Most items one call may hold.
        public static let maxItems = 1_000

        public struct Params: Codable, Sendable, Hashable {
            /// 1 to ``maxItems`` notifications to store.
            public var items: [Put.Params]
            public init(items: [Put.Params]) { self.items = items }
        }

        public struct Result: Codable, Sendable, Hashable {
            /// One per item, in the items' order.
            public var results: [Put.Result]
            public init(results: [Put.Result]) { self.results = results }
        }
    }
}

extension Store.PutMany.Params: RPCDirectEncodable {
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("items", items) { item, writer in item.write(to: &writer) }
        writer.endObject()
    }
}
