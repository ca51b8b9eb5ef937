extension Store {
    /// `store.delete {notificationId}` (user token) → `{}`.
    public enum Delete: RPCMethod {
        public static let name = "store.delete"
        public typealias Params = Get.Params
        public typealias Result = Empty
    }
}
