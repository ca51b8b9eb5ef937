import Crypto
import DispatchService
import Foundation

/// A provider key as Apple hands it out: a P-256 key (the `.p8` file), its key id and the team id.
public struct APNsTestKey: Sendable {
    public let privateKey = P256.Signing.PrivateKey()
    public let keyID: String
    public let teamID: String

    public init(keyID: String = "KEY1234567", teamID: String = "TEAM123456") {
        self.keyID = keyID
        self.teamID = teamID
    }

    /// The `.p8` file contents: PKCS#8 PEM.
    public var p8: String { privateKey.pemRepresentation }
}
