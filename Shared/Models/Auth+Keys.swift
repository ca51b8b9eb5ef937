extension Auth {
    /// `auth.keys {}` → the public keys (a JWKS) that verify access tokens.
    public enum Keys: RPCMethod {
        public static let name = "auth.keys"

        public struct Result: Codable, Sendable, Hashable {
            /// Every key whose tokens may still be valid, the signing key first (a JWKS).
            public var keys: [PublicJWK]
            public init(keys: [PublicJWK]) { self.keys = keys }
        }
    }

    /// An EC P-256 public key in JWK form (RFC 7517/7518).
    public struct PublicJWK: Codable, Sendable, Hashable {
        /// `"EC"`.
        public var kty: String
        /// `"P-256"`.
        public var crv: String
        /// Base64url of the x coordinate.
        public var x: String
        /// Base64url of the y coordinate.
        public var y: String
        /// The key id, as in the tokens' `kid` header.
        public var kid: String
        /// `"ES256"`.
        public var alg: String
        /// `"sig"`.
        public var use: String

        public init(
            kty: String = "EC", crv: String = "P-256", x: String, y: String, kid: String, alg: String = "ES256",
            use: String = "sig"
        ) {
            self.kty = kty
            self.crv = crv
            self.x = x
            self.y = y
            self.kid = kid
            self.alg = alg
            self.use = use
        }
    }
}
