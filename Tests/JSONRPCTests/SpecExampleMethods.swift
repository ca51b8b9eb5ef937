import JSONRPC

/// `subtract`: the JSON-RPC 2.0 specification's example method, taking positional or named params.
enum Subtract: RPCMethod {
    static let name = "subtract"
    typealias Params = SubtractParams
    typealias Result = Int
}

/// `sum`: adds positional params.
enum Sum: RPCMethod {
    static let name = "sum"
    typealias Params = [Int]
    typealias Result = Int
}

/// `notify_hello`: only ever sent as a notification in the specification.
enum NotifyHello: RPCMethod {
    static let name = "notify_hello"
    typealias Params = [Int]
    typealias Result = Empty
}

/// `update`: only ever sent as a notification in the specification.
enum Update: RPCMethod {
    static let name = "update"
    typealias Params = [Int]
    typealias Result = Empty
}

/// `get_data`: takes no params and returns `["hello", 5]`.
enum GetData: RPCMethod {
    static let name = "get_data"
    typealias Params = Empty
    typealias Result = JSONValue
}

/// `notify_sum`: `sum`, sent as a notification.
enum NotifySum: RPCMethod {
    static let name = "notify_sum"
    typealias Params = [Int]
    typealias Result = Int
}
