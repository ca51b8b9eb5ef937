import NIOHTTP1

extension HTTPResponseHead {
    /// Whether this is the response's own head rather than an informational (1xx) one; 101 ends the exchange too.
    var isFinal: Bool {
        !(100..<200).contains(status.code) || status.code == 101
    }
}
