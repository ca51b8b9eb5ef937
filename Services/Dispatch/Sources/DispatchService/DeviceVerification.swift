import Crypto
import Foundation
import SharedModels

/// Proof of possession for platform tokens. An APNs, FCM or WNS token already registered to another user does not
/// move: the registration becomes a pending device, push-dispatch pushes `{"securepushChallenge": "<challenge>"}` to
/// the token, and the device moves only when its new owner answers with `devices.verify {deviceId, challenge}`.
/// Whoever merely knows a token never receives what is pushed to it, so cannot answer.
public enum DeviceVerification {
    /// How long a pending device waits for its challenge (`devices.verify` after this is refused).
    public static let window: Duration = .seconds(600)
    /// Wrong answers a pending device survives; the fifth ends it (the user registers again for a new challenge).
    public static let maxTries = 5
    /// A token gets at most one challenge this often, whoever registers it (so knowing a token does not let anyone
    /// flood its device); a registration in between stays pending and the next registration pushes it.
    public static let resendInterval: Duration = .seconds(30)
    /// The platforms whose tokens are proven by a challenge. `direct` tokens are scoped to their owner and Web Push
    /// subscriptions carry their own keys: neither is challenged.
    public static let challengedPlatforms: Set<Platform> = [.apns, .fcm, .wns]
    /// The field of the pushed message that carries the challenge.
    public static let pushField = "securepushChallenge"
    /// The field of the pushed message that names the pending device the challenge is for (the SDK answers only for
    /// its own user's pending devices: another user's is `-32004` and costs no try).
    public static let deviceField = "securepushDeviceId"

    /// The lock that serialises every registration and verification of one token, in every app, taken before any row
    /// lock.
    static func tokenLock(_ platform: Platform, _ token: String) -> String {
        "dispatch.device.token:\(platform.rawValue):\(token)"
    }
    /// `Devices.Register.Result.verification` of a pending device.
    public static let pending = "pending"

    /// A fresh challenge: 16 random bytes, base64url without padding (22 characters).
    public static func makeChallenge() -> String {
        SymmetricKey(size: SymmetricKeySize(bitCount: 128)).withUnsafeBytes { Data($0) }.base64URLEncodedString()
    }

    /// What is stored of a challenge: its SHA-256, hex. A copy of the database does not answer a challenge.
    static func digest(_ challenge: String) -> String {
        SHA256.hash(data: Data(challenge.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// Whether `answer` is the challenge whose digest is `digest`, compared in constant time.
    static func matches(_ answer: String, digest expected: String) -> Bool {
        let actual = Array(digest(answer).utf8)
        let stored = Array(expected.utf8)
        guard actual.count == stored.count else { return false }
        return zip(actual, stored).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
