import Foundation

extension Store {
    /// `store.put {recipientId, payload, ttlSeconds?, recipientKeys?, sealedOnly?, readOnce?, idempotencyKey?}` (scope
    /// `store:write`) → `{notificationId, expiresAt}`.
    public enum Put: RPCMethod {
        public static let name = "store.put"

        public struct Params: Codable, Sendable, Hashable {
            /// The user id of the only person who may read the payload.
            public var recipientId: String
            /// The sensitive text; at most 64 KiB of UTF-8 by default.
            public var payload: String
            /// Lifetime in seconds; default 7 days, at most 30 days.
            public var ttlSeconds: Int?
            /// The recipient's sealed devices: the payload is sealed to each key, and only that ciphertext is kept for it.
            public var recipientKeys: [RecipientKey]?
            /// `true`: every targeted device is sealed, so no server-readable copy is kept at all.
            public var sealedOnly: Bool?
            /// `true`: the recipient's first successful fetch erases every copy.
            public var readOnce: Bool?
            /// The same key from the same client returns the notification it first stored (until that one is purged,
            /// expired or not) and stores nothing (1–255 bytes of UTF-8).
            public var idempotencyKey: String?
            /// A scheduled send's due time: the notification is held (its recipient can neither list nor fetch it)
            /// until `store.publish` shows it, and expires `ttlSeconds` after this.
            public var sendAt: Date?
            public init(
                recipientId: String, payload: String, ttlSeconds: Int? = nil, recipientKeys: [RecipientKey]? = nil,
                sealedOnly: Bool? = nil, readOnce: Bool? = nil, idempotencyKey: String? = nil, sendAt: Date? = nil
            ) {
                self.sendAt = sendAt
                self.idempotencyKey = idempotencyKey
                self.recipientId = recipientId
                self.payload = payload
                self.ttlSeconds = ttlSeconds
                self.recipientKeys = recipientKeys
                self.sealedOnly = sealedOnly
                self.readOnce = readOnce
            }
        }

        public struct Result: Codable, Sendable, Hashable {
            /// A random 128-bit id (UUIDv4), never sequential.
            public var notificationId: String
            /// When the stored notification expires and is purged.
            public var expiresAt: Date
            /// `true` when the notification is held for a `sendAt` (also one an idempotency key found): it is shown
            /// only by `store.publish`. Absent otherwise.
            public var held: Bool?
            public init(notificationId: String, expiresAt: Date, held: Bool? = nil) {
                self.notificationId = notificationId
                self.expiresAt = expiresAt
                self.held = held
            }
        }
    }

    /// A sealed device of the recipient and its public key (base64url without padding, X9.62 uncompressed P-256).
    public struct RecipientKey: Codable, Sendable, Hashable {
        /// The recipient's device (a UUID, named once per call).
        public var deviceId: String
        /// Its P-256 public key (base64url X9.62 uncompressed): the copy for this device is sealed to it.
        public var publicKey: String
        public init(deviceId: String, publicKey: String) {
            self.deviceId = deviceId
            self.publicKey = publicKey
        }
    }
}

extension Store.Put.Params: RPCDirectEncodable {
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("idempotencyKey", idempotencyKey)
        writer.member("payload", payload)
        writer.member("readOnce", readOnce)
        writer.member("recipientId", recipientId)
        if let recipientKeys {
            writer.member("recipientKeys", recipientKeys) { key, writer in key.write(to: &writer) }
        }
        writer.member("sealedOnly", sealedOnly)
        writer.member("sendAt", sendAt)
        writer.member("ttlSeconds", ttlSeconds)
        writer.endObject()
    }
}

extension Store.RecipientKey: RPCDirectEncodable {
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("deviceId", deviceId)
        writer.member("publicKey", publicKey)
        writer.endObject()
    }
}
