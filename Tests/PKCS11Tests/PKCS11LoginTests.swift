import Foundation
import SoftHSMFixture
import Testing

@testable import PKCS11

/// A search that finds nothing must not cost the process its login: in SoftHSM2, closing a token's last session
/// logs the process out, and a logged-out session sees no private key — a label an AES key holds looked free, and a
/// generation made a second key of it. Each test uses one of the ``SoftHSM/twinLabel`` tokens by serial, whose
/// sessions no other test touches.
@Suite("the login of a PKCS#11 token (SoftHSM2)")
struct PKCS11LoginTests {
    let hsm: SoftHSM

    init() throws {
        hsm = try SoftHSM.shared()
    }

    /// The `index`th token labelled ``SoftHSM/twinLabel``, and a URI for `object` in it.
    private func twin(_ index: Int) async throws -> (token: PKCS11Token, uri: (String) throws -> PKCS11URI) {
        let serials = try await hsm.serials(ofTokensLabelled: SoftHSM.twinLabel)
        try #require(serials.count == 2, "\(serials)")
        let prefix = "pkcs11:token=\(SoftHSM.twinLabel);serial=\(serials[index])"
        let uri = { (object: String) throws -> PKCS11URI in try PKCS11URI("\(prefix);object=\(object)") }
        let token = try PKCS11Module.load(path: SoftHSM.modulePath).token(try uri("any"), pin: SoftHSM.pin)
        return (token, uri)
    }

    @Test("after a search for a key that is not there, a generation of a label an AES key holds is refused")
    func generationAfterMissingKey() async throws {
        let (token, uri) = try await twin(0)
        let label = SoftHSM.uniqueLabel("held")
        _ = try token.generateAESKey(label: label)
        #expect { try PKCS11AESKey.find(try uri("no-such-key"), in: token) } throws: {
            ($0 as? PKCS11Error)?.isMissingKey == true
        }
        #expect { try token.generateAESKey(label: label) } throws: {
            String(describing: $0).contains("already holds an object labelled '\(label)'")
        }
        // Still exactly one key of that label.
        _ = try PKCS11AESKey.find(try uri(label), in: token)
    }

    @Test("a search for a key that is not there, or for an AES key's label as an EC key, keeps the session")
    func sessionsKept() async throws {
        let (token, uri) = try await twin(1)
        let label = SoftHSM.uniqueLabel("kept")
        _ = try token.generateAESKey(label: label)
        let idle = token.idleSessionCount
        try #require(idle >= 1)
        #expect(throws: PKCS11Error.self) { try PKCS11AESKey.find(try uri("no-such-key"), in: token) }
        #expect(token.idleSessionCount >= idle, "a missing key closed sessions")
        #expect { try PKCS11ECPrivateKey.find(try uri(label), in: token) } throws: {
            String(describing: $0).contains("no private key")
        }
        #expect(token.idleSessionCount >= idle, "a search of the other key class closed sessions")
        // The login held: the private key is found on the sessions kept.
        _ = try PKCS11AESKey.find(try uri(label), in: token)
    }
}
