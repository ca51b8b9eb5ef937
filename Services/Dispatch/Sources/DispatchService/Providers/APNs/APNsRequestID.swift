import Crypto
import Foundation

/// The `apns-id` of one notification to one device: a name-based UUID (version 5, RFC 9562) of the notification
/// id and the device id, so every attempt of the same delivery carries the same id and APNs' answers and
/// Apple's delivery log can be matched to it.
enum APNsRequestID {
    /// The namespace of SecurePush delivery ids (a fixed random UUID).
    private static let namespace: [UInt8] = [
        0x5c, 0x1e, 0x2b, 0x8a, 0x93, 0x4d, 0x4f, 0x61, 0xb2, 0x7e, 0x0d, 0x3c, 0x58, 0xa9, 0x16, 0xe4,
    ]

    /// The lower-case canonical UUID for delivering `notificationID` to `deviceID`.
    static func make(notificationID: String, deviceID: String) -> String {
        var hasher = Insecure.SHA1()
        hasher.update(data: namespace)
        hasher.update(data: Data("\(notificationID)/\(deviceID)".utf8))
        var bytes = Array(hasher.finalize().prefix(16))
        bytes[6] = (bytes[6] & 0x0f) | 0x50
        bytes[8] = (bytes[8] & 0x3f) | 0x80
        let uuid = UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            )
        )
        return uuid.uuidString.lowercased()
    }
}
