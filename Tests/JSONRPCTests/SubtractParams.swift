import JSONRPC

/// The params of `subtract`, read from `[minuend, subtrahend]` or `{"minuend": …, "subtrahend": …}`.
struct SubtractParams: Codable, Sendable, Hashable {
    var minuend: Int
    var subtrahend: Int

    init(minuend: Int, subtrahend: Int) {
        self.minuend = minuend
        self.subtrahend = subtrahend
    }

    private enum CodingKeys: String, CodingKey { case minuend, subtrahend }

    init(from decoder: any Decoder) throws {
        if var positional = try? decoder.unkeyedContainer() {
            minuend = try positional.decode(Int.self)
            subtrahend = try positional.decode(Int.self)
            guard positional.isAtEnd else {
                throw DecodingError.dataCorrupted(
                    .init(codingPath: decoder.codingPath, debugDescription: "expected exactly two numbers")
                )
            }
        } else {
            let named = try decoder.container(keyedBy: CodingKeys.self)
            minuend = try named.decode(Int.self, forKey: .minuend)
            subtrahend = try named.decode(Int.self, forKey: .subtrahend)
        }
    }

    /// Encodes positionally, the form the specification's first examples use.
    func encode(to encoder: any Encoder) throws {
        var positional = encoder.unkeyedContainer()
        try positional.encode(minuend)
        try positional.encode(subtrahend)
    }
}
