import Foundation

extension Store {
    /// `store.get {notificationId, deviceId?}` → the notification with its payload, or with the device's sealed copy.
    /// Authenticated by the recipient's user token, or (no token) by a `SecurePush-Device-Proof` header.
    public enum Get: RPCMethod {
        public static let name = "store.get"

        public struct Params: Codable, Sendable, Hashable {
            /// The notification to fetch (only its recipient may).
            public var notificationId: String
            /// The fetching device: required with a device proof; with a user token, it selects the device's sealed
            /// copy and records the fetch as that device's receipt.
            public var deviceId: String?
            public init(notificationId: String, deviceId: String? = nil) {
                self.notificationId = notificationId
                self.deviceId = deviceId
            }
        }

        public typealias Result = StoredNotification
    }

    /// A notification with its payload (or the fetching device's sealed copy of it), as its recipient fetches it.
    public struct StoredNotification: Codable, Sendable, Hashable {
        /// The notification's id.
        public var notificationId: String
        /// The payload; absent when `sealed` is given instead.
        public var payload: String?
        /// The payload sealed to the fetching device's key; only that device can open it.
        public var sealed: SealedCopy?
        /// When the notification was stored.
        public var createdAt: Date
        /// When it expires and is purged.
        public var expiresAt: Date
        /// When the recipient first marked it read, if ever.
        public var readAt: Date?
        public init(
            notificationId: String, payload: String? = nil, sealed: SealedCopy? = nil, createdAt: Date,
            expiresAt: Date, readAt: Date? = nil
        ) {
            self.notificationId = notificationId
            self.payload = payload
            self.sealed = sealed
            self.createdAt = createdAt
            self.expiresAt = expiresAt
            self.readAt = readAt
        }
    }

    /// A payload sealed to one device with HPKE (RFC 9180); `enc` and `ciphertext` are base64url without padding.
    public struct SealedCopy: Codable, Sendable, Hashable {
        /// The recipient device whose copy this is.
        public var deviceId: String
        /// The HPKE encapsulated key (65 bytes).
        public var enc: String
        /// The AES-128-GCM ciphertext with its tag.
        public var ciphertext: String
        public init(deviceId: String, enc: String, ciphertext: String) {
            self.deviceId = deviceId
            self.enc = enc
            self.ciphertext = ciphertext
        }
    }
}

extension Store.StoredNotification: RPCDirectEncodable {
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("createdAt", createdAt)
        writer.member("expiresAt", expiresAt)
        writer.member("notificationId", notificationId)
        writer.member("payload", payload)
        writer.member("readAt", readAt)
        if let sealed {
            writer.key("sealed")
            sealed.write(to: &writer)
        }
        writer.endObject()
    }
}

extension Store.SealedCopy: RPCDirectEncodable {
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("ciphertext", ciphertext)
        writer.member("deviceId", deviceId)
        writer.member("enc", enc)
        writer.endObject()
    }
}

extension Store.Get.Params: RPCDirectDecodable {
    public init(params: RPCParamsReader) throws(RPCError) {
        self.init(notificationId: try params.string("notificationId"), deviceId: try params.optionalString("deviceId"))
    }
}
