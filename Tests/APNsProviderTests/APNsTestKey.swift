import Crypto
import DispatchService
import Foundation

/// A provider key as Apple hands it out: a P-256 key (the `.p8` file), its key id and the team id.
struct APNsTestKey: Sendable {
    let privateKey = P256.Signing.PrivateKey()
    let keyID: String
    let teamID: String

    init(keyID: String = "KEY1234567", teamID: String = "TEAM123456") {
        self.keyID = keyID
        self.teamID = teamID
    }

    /// The `.p8` file contents: PKCS#8 PEM.
    var p8: String { privateKey.pemRepresentation }
}
