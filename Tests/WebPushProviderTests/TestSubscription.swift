import Crypto
import Foundation

/// A browser's push subscription, as a test holds it: the private half the browser keeps, and the JSON it gives
/// the app (`PushSubscription.toJSON()`), which becomes the device token.
struct TestSubscription: Sendable {
    let endpoint: String
    let privateKey: P256.KeyAgreement.PrivateKey
    let authSecret: Data

    init(endpoint: String) {
        self.endpoint = endpoint
        self.privateKey = P256.KeyAgreement.PrivateKey()
        self.authSecret = Data((0..<16).map { _ in UInt8.random(in: .min ... .max) })
    }

    /// `keys.p256dh`: the uncompressed public point, base64url.
    var p256dh: String { privateKey.publicKey.x963Representation.base64URL }
    /// `keys.auth`, base64url.
    var auth: String { authSecret.base64URL }

    /// The JSON a browser produces, member order and `expirationTime` included.
    var token: String {
        #"{"endpoint":"\#(endpoint)","expirationTime":null,"keys":{"p256dh":"\#(p256dh)","auth":"\#(auth)"}}"#
    }

    /// Reads a body encrypted for this subscription.
    var decryptor: WebPushDecryptor { WebPushDecryptor(privateKey: privateKey, authSecret: authSecret) }
}
