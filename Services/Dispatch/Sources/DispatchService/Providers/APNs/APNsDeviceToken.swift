/// APNs device tokens as apps report them: the token's bytes in hexadecimal.
enum APNsDeviceToken {
    /// Tokens are 32 bytes today; Apple has said they may grow, so up to 100 bytes are accepted.
    static let lengthRange = 64...200

    /// The stored form (lower case) of a valid token, or `-32602` naming `token`.
    static func validate(_ token: String?) throws(DispatchError) -> String {
        guard let token, !token.isEmpty else {
            throw .invalidField("token", "is required for platform 'apns' (the device token in hexadecimal)")
        }
        guard token.utf8.allSatisfy(\.isHexDigit) else {
            throw .invalidField("token", "must be the APNs device token in hexadecimal (0-9, a-f)")
        }
        guard token.utf8.count % 2 == 0, lengthRange.contains(token.utf8.count) else {
            throw .invalidField(
                "token",
                "must be an even number of \(lengthRange.lowerBound)–\(lengthRange.upperBound) hexadecimal digits, "
                    + "got \(token.utf8.count)"
            )
        }
        return token.lowercased()
    }
}

extension UInt8 {
    fileprivate var isHexDigit: Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(self)
    }
}
