import JSONRPC

/// Remembers which methods ran with which params, so tests can see that notifications were executed.
actor CallRecorder {
    private(set) var calls: [(method: String, params: [Int])] = []

    func record(_ method: String, _ params: [Int]) {
        calls.append((method, params))
    }

    /// The methods that ran, in order.
    var methods: [String] { calls.map(\.method) }
}
