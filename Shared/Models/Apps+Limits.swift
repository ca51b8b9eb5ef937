import Foundation

extension Apps {
    /// An app's own limits; each one absent is the deployment's (`SECUREPUSH_MAX_DEVICES_PER_USER`,
    /// `SECUREPUSH_MAX_PAYLOAD_BYTES`, `SECUREPUSH_MAX_TTL_SECONDS`; no send rate). An app's payload and TTL bounds only
    /// lower the deployment's.
    public struct Limits: Codable, Sendable, Hashable {
        /// Devices per user of this app (1 to 100,000).
        public var maxDevicesPerUser: Int?
        /// `push.send` calls per minute for this app, every replica together, each recipient counting (1 to
        /// 1,000,000); beyond it `-32029` with `data: {quota: "sendsPerMinute", limit, appId, retryAfterSeconds}`.
        public var sendsPerMinute: Int?
        /// Largest payload, in UTF-8 bytes (1 to the deployment's).
        public var maxPayloadBytes: Int?
        /// Longest `ttlSeconds` (1 to the deployment's).
        public var maxTTLSeconds: Int?

        public init(
            maxDevicesPerUser: Int? = nil, sendsPerMinute: Int? = nil, maxPayloadBytes: Int? = nil,
            maxTTLSeconds: Int? = nil
        ) {
            self.maxDevicesPerUser = maxDevicesPerUser
            self.sendsPerMinute = sendsPerMinute
            self.maxPayloadBytes = maxPayloadBytes
            self.maxTTLSeconds = maxTTLSeconds
        }

        /// `self` with each limit `other` sets replacing this one's.
        public func merging(_ other: Limits) -> Limits {
            Limits(
                maxDevicesPerUser: other.maxDevicesPerUser ?? maxDevicesPerUser,
                sendsPerMinute: other.sendsPerMinute ?? sendsPerMinute,
                maxPayloadBytes: other.maxPayloadBytes ?? maxPayloadBytes,
                maxTTLSeconds: other.maxTTLSeconds ?? maxTTLSeconds)
        }
    }
}
