import Crypto
import Foundation
import SharedModels

/// What a `push.send` asks for besides its recipients, the same for one recipient (``Push/Send``) and for many
/// (``Push/SendToMany``): checked once, and digested into the fingerprint that ties an idempotency key to its call.
struct SendOptions: Codable, Sendable, Hashable {
    var payload: String
    var ttlSeconds: Int?
    var idempotencyKey: String?
    var sealedOnly: Bool?
    var readOnce: Bool?
    var appId: String?
    var priority: Push.Priority?
    var collapseId: String?
    var sendAt: Date?

    init(_ params: Push.Send.Params) {
        payload = params.payload
        ttlSeconds = params.ttlSeconds
        idempotencyKey = params.idempotencyKey
        sealedOnly = params.sealedOnly
        readOnce = params.readOnce
        appId = params.appId
        priority = params.priority
        collapseId = params.collapseId
        sendAt = params.sendAt
    }

    init(_ params: Push.SendToMany.Params) {
        payload = params.payload
        ttlSeconds = params.ttlSeconds
        idempotencyKey = params.idempotencyKey
        sealedOnly = params.sealedOnly
        readOnce = params.readOnce
        appId = params.appId
        priority = params.priority
        collapseId = params.collapseId
        sendAt = params.sendAt
    }

    /// Longest collapse id: Web Push's `Topic` header allows 32 characters of the base64url alphabet.
    static let maxCollapseIDLength = 32

    /// `-32602` naming `idempotencyKey`: the key was first used with other recipients, payload or options.
    static let keyReused = DispatchError.invalidField(
        "idempotencyKey", "reused with different parameters (recipients, payload or options)")

    /// When the send is due, when it is scheduled: `sendAt` at least 1 s after `now` (earlier is sent at once).
    func dueAt(now: Date) -> Date? {
        guard let sendAt, sendAt.timeIntervalSince(now) >= 1 else { return nil }
        return sendAt
    }

    /// Checks the options against the deployment's bounds and the app's (the lower of the two wins), and `sendAt`
    /// against `SECUREPUSH_MAX_SCHEDULE` from `now`.
    func validate(limits: PushSender.Limits, app: Apps.Limits, now: Date) throws(DispatchError) {
        if let sendAt, sendAt.timeIntervalSince(now) > TimeInterval(limits.maxScheduleSeconds) {
            throw .invalidField(
                "sendAt", "must be at most \(limits.maxScheduleSeconds) seconds ahead (SECUREPUSH_MAX_SCHEDULE)")
        }
        let maxPayloadBytes = min(app.maxPayloadBytes ?? limits.maxPayloadBytes, limits.maxPayloadBytes)
        let maxTTLSeconds = min(app.maxTTLSeconds ?? limits.maxTTLSeconds, limits.maxTTLSeconds)
        guard !payload.isEmpty else { throw .invalidField("payload", "must not be empty") }
        let bytes = payload.utf8.count
        guard bytes <= maxPayloadBytes else {
            throw .invalidField("payload", "must be at most \(maxPayloadBytes) bytes of UTF-8 (got \(bytes))")
        }
        if let ttl = ttlSeconds, !(1...maxTTLSeconds).contains(ttl) {
            throw .invalidField("ttlSeconds", "must be between 1 and \(maxTTLSeconds)")
        }
        if let key = idempotencyKey, let reason = TextLimit.idempotencyKey.violation(in: key) {
            throw .invalidField("idempotencyKey", reason)
        }
        if let priority, !Push.Priority.accepted.contains(priority) {
            throw .invalidField("priority", "must be 'high' or 'normal'")
        }
        if let collapseId, !Self.isValidCollapseID(collapseId) {
            throw .invalidField(
                "collapseId", "must be 1–\(Self.maxCollapseIDLength) characters of A–Z, a–z, 0–9, '-' and '_'")
        }
    }

    /// 1–32 characters of the base64url alphabet (what Web Push's `Topic` header may hold).
    static func isValidCollapseID(_ id: String) -> Bool {
        (1...maxCollapseIDLength).contains(id.utf8.count)
            && id.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                    true
                default: false
                }
            }
    }

    /// A digest of the recipients (as a set) and every option but the key itself: the same key with another
    /// fingerprint is refused. `many` tells `recipientIds` from `recipientId`, whose results differ in shape.
    func fingerprint(recipients: [String], many: Bool) -> String {
        struct Digested: Encodable {
            var many: Bool
            var recipients: [String]
            var options: SendOptions
        }
        var options = self
        options.idempotencyKey = nil
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        // Encoding plain strings, numbers and booleans cannot fail; an empty digest input would still be one value.
        let bytes =
            (try? encoder.encode(Digested(many: many, recipients: Set(recipients).sorted(), options: options)))
            ?? Data()
        return Data(SHA256.hash(data: bytes)).base64URLEncodedString()
    }

    /// The store's idempotency key for one recipient of a call with `key`: a retried call finds the notification
    /// the first one stored for that recipient.
    static func storeKey(clientID: String, key: String, recipientID: String) -> String {
        Data(SHA256.hash(data: Data("\(clientID)\u{0}\(key)\u{0}\(recipientID)".utf8))).base64URLEncodedString()
    }
}
