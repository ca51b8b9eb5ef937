import CryptoExtras
import Foundation
import JWTKit
import TestSupport

/// One RSA key for the whole test run: generating a 2048-bit key takes a noticeable moment in a debug build.
let testAccountKey = try! _RSA.Signing.PrivateKey(keySize: .bits2048)

/// A service account like the JSON key file the Firebase console downloads, written to a ``TemporaryDirectory``.
struct TestServiceAccount: Sendable {
    var projectID = "securepush-test"
    var clientEmail = "firebase-adminsdk-x1y2z@securepush-test.iam.gserviceaccount.com"
    var privateKeyID = "7f3c2d1e0b9a887766554433221100ffeeddccbb"
    var tokenURI: String
    /// The account's private key (another project's account has its own).
    var key = testAccountKey

    /// The key Google holds the public half of: the mock verifies assertions with it.
    var publicKey: JWTKit.Insecure.RSA.PublicKey {
        try! JWTKit.Insecure.RSA.PublicKey(pem: key.publicKey.pemRepresentation)
    }

    /// The file's JSON, with every field a real key file has.
    func json(overriding overrides: [String: Any?] = [:]) throws -> Data {
        var fields: [String: Any] = [
            "type": "service_account",
            "project_id": projectID,
            "private_key_id": privateKeyID,
            "private_key": key.pkcs8PEMRepresentation + "\n",
            "client_email": clientEmail,
            "client_id": "104857261537284910293",
            "auth_uri": "https://accounts.google.com/o/oauth2/auth",
            "token_uri": tokenURI,
            "auth_provider_x509_cert_url": "https://www.googleapis.com/oauth2/v1/certs",
            "client_x509_cert_url": "https://www.googleapis.com/robot/v1/metadata/x509/firebase-adminsdk",
            "universe_domain": "googleapis.com",
        ]
        for (key, value) in overrides { fields[key] = value }
        return try JSONSerialization.data(withJSONObject: fields, options: [.prettyPrinted, .sortedKeys])
    }

    /// Writes the key file into a new ``TemporaryDirectory`` (removed when the test process exits) and returns its
    /// path.
    func write(overriding overrides: [String: Any?] = [:]) throws -> String {
        let file = try TemporaryDirectory(prefix: "securepush-fcm").file("service-account.json")
        try json(overriding: overrides).write(to: URL(fileURLWithPath: file))
        return file
    }
}
