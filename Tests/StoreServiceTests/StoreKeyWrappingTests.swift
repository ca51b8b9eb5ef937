import Foundation
import PKCS11
import ServiceCore
import SoftHSMFixture
import StoreService
import TestSupport
import Testing

@Suite("The store's data keys wrapped by a key in a PKCS#11 module (SoftHSM2)")
struct StoreKeyWrappingTests {
    let hsm: SoftHSM
    let token: PKCS11Token

    init() throws {
        (hsm, token) = try SoftHSM.sharedToken()
    }

    func wrapper(_ label: String) throws -> EncryptionKeyWrapping {
        try #require(
            try EncryptionKeyWrapping.fromEnvironment(
                ServiceEnvironment(
                    hsm.environment.merging(["SECUREPUSH_STORE_KEY_WRAPPING_KEY": hsm.uri(label)]) {
                        _, new in new
                    }),
                variable: "SECUREPUSH_STORE_KEY_WRAPPING_KEY"))
    }

    @Test(
        "turning the module on wraps the file's keys in place; payloads sealed before still open; the file alone opens nothing"
    )
    func migration() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("store-keys")
        let plain = EncryptionKeyFile(path: path, purpose: .store)
        let (ring, _) = try plain.loadOrCreate(now: Date())
        let keyText = try #require(ring.current.fileLine.split(separator: " ").last.map(String.init))
        let before = AESGCMPayloadSealer(ring: ring)
        let sealedBefore = try before.seal(Data("statement ready".utf8), notificationID: "n-1")

        let label = SoftHSM.uniqueLabel("store-wrap")
        _ = try token.generateAESKey(label: label)
        let wrapping = try wrapper(label)
        let log = RecordedLog()
        let sealer = try StoreKeySource.file(path).makeSealer(logger: log.logger(), wrapping: wrapping)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(!text.contains(keyText), "the key in clear is gone from the file")
        #expect(text.contains("\(ring.current.id) wrapped:"))
        #expect(text.hasPrefix("# SecurePush store key file"), "comments are kept")
        let opened = try sealer.open(sealedBefore.bytes, scheme: sealedBefore.scheme, notificationID: "n-1")
        #expect(String(decoding: opened, as: UTF8.self) == "statement ready")
        #expect(wrapping.token === token)

        // Without the module the file opens nothing: the store refuses to start, naming what to set.
        #expect {
            try StoreKeySource.file(path).makeSealer(logger: log.logger())
        } throws: {
            String(describing: $0).contains(
                "is wrapped by a key in a PKCS#11 module: set SECUREPUSH_STORE_KEY_WRAPPING_KEY")
        }
        // Nor under another module key.
        let other = SoftHSM.uniqueLabel("store-wrap-other")
        _ = try token.generateAESKey(label: other)
        #expect {
            try StoreKeySource.file(path).makeSealer(logger: log.logger(), wrapping: try wrapper(other))
        } throws: {
            String(describing: $0).contains("cannot be unwrapped")
        }
        // A wrapped value moved to another key id does not open either (the id is bound to it).
        let moved = text.replacingOccurrences(of: "\(ring.current.id) wrapped:", with: "other-id wrapped:")
        try moved.write(toFile: path, atomically: true, encoding: .utf8)
        #expect {
            try StoreKeySource.file(path).makeSealer(logger: log.logger(), wrapping: try wrapper(label))
        } throws: {
            String(describing: $0).contains("key 'other-id' cannot be unwrapped")
        }
    }

    @Test("rotation with the module on appends a wrapped key; both keys load, the new one encrypts")
    func rotation() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let label = SoftHSM.uniqueLabel("store-wrap")
        _ = try token.generateAESKey(label: label)
        let file = EncryptionKeyFile(path: directory.file("store-keys"), purpose: .store, wrapping: try wrapper(label))
        let first = try file.loadOrCreate(now: Date()).ring.current
        let second = EncryptionKey.generate(now: Date())
        try file.append(second)
        let text = try String(contentsOfFile: file.path, encoding: .utf8)
        #expect(text.components(separatedBy: " wrapped:").count == 3)
        #expect(!text.contains(second.fileLine))
        let ring = try file.load()
        #expect(ring.keys.map(\.id) == [first.id, second.id])
        #expect(ring.current.fileLine == second.fileLine)
    }
}
