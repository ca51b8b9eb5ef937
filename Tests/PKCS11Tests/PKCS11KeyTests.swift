import Crypto
import Foundation
import PKCS11
import SoftHSMFixture
import Testing

@Suite("keys in a PKCS#11 module (SoftHSM2)")
struct PKCS11KeyTests {
    let hsm: SoftHSM
    let token: PKCS11Token

    init() throws {
        (hsm, token) = try SoftHSM.sharedToken()
    }

    @Test("an EC key made in the token is sensitive and not extractable; its signatures verify outside the module")
    func ecSignatures() throws {
        let label = SoftHSM.uniqueLabel("sign")
        let key = try token.generateECKeyPair(label: label)
        let protection = try key.protection()
        #expect(protection.sensitive)
        #expect(!protection.extractable)
        // Found again by URI, with the same public key.
        let found = try PKCS11ECPrivateKey.find(try PKCS11URI(hsm.uri(label)), in: token)
        #expect(found.publicKeyX963 == key.publicKeyX963)

        let message = Data("header.payload".utf8)
        let signature = try found.sign(digest: Array(SHA256.hash(data: message)))
        #expect(signature.count == 64)
        let publicKey = try P256.Signing.PublicKey(x963Representation: key.publicKeyX963)
        let ecdsa = try P256.Signing.ECDSASignature(rawRepresentation: signature)
        #expect(publicKey.isValidSignature(ecdsa, for: message))
        #expect(!publicKey.isValidSignature(ecdsa, for: Data("header.other".utf8)))
        // A second key of the same label is refused, never a replacement.
        #expect(throws: PKCS11Error.self) { try token.generateECKeyPair(label: label) }
    }

    @Test("AES-GCM inside the module: opens what it sealed, refuses altered bytes and other associated data")
    func wrapping() throws {
        let key = try token.generateAESKey(label: SoftHSM.uniqueLabel("wrap"))
        let secret = Array(repeating: UInt8(0xA5), count: 32)
        let sealed = try key.seal(secret, associatedData: Array("id-1".utf8))
        #expect(sealed.count == 12 + 32 + 16)
        #expect(!sealed.containsSequence(secret))
        #expect(try key.open(sealed, associatedData: Array("id-1".utf8)) == secret)
        #expect(throws: PKCS11Error.self) { try key.open(sealed, associatedData: Array("id-2".utf8)) }
        var altered = sealed
        altered[20] ^= 1
        #expect(throws: PKCS11Error.self) { try key.open(altered, associatedData: Array("id-1".utf8)) }
        #expect(throws: PKCS11Error.self) { try key.open(Array(sealed.prefix(10)), associatedData: []) }
        // Bad data says nothing about the module: the key stays ready.
        #expect(key.probe() == "ok")
    }

    @Test("keys generated at once in one token all succeed; of eight asking for one label, exactly one gets it")
    func concurrentGeneration() async throws {
        let token = token
        let made = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<8 {
                group.addTask {
                    let label = SoftHSM.uniqueLabel("together-\(index)")
                    return index.isMultiple(of: 2)
                        ? (try? token.generateAESKey(label: label)) != nil
                        : (try? token.generateECKeyPair(label: label)) != nil
                }
            }
            return await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
        }
        #expect(made == 8)
        let label = SoftHSM.uniqueLabel("one-label")
        let outcomes = await withTaskGroup(of: Result<Void, PKCS11Error>.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    do throws(PKCS11Error) {
                        _ = try token.generateAESKey(label: label)
                        return .success(())
                    } catch {
                        return .failure(error)
                    }
                }
            }
            return await group.reduce(into: [Result<Void, PKCS11Error>]()) { $0.append($1) }
        }
        #expect(outcomes.filter { (try? $0.get()) != nil }.count == 1)
        for case .failure(let error) in outcomes {
            #expect(String(describing: error).contains("already holds an object labelled"), "\(error)")
        }
    }

    @Test("keys generated while other threads seal, open, sign and find keys all succeed, and so do those operations")
    func generationBesideOperations() async throws {
        let token = token
        let aesLabel = SoftHSM.uniqueLabel("busy-aes")
        let aes = try token.generateAESKey(label: aesLabel)
        let ec = try token.generateECKeyPair(label: SoftHSM.uniqueLabel("busy-ec"))
        let uri = try PKCS11URI(hsm.uri(aesLabel))
        // Detached threads, not tasks: each blocks in the module, and the test's tasks must not wait for a free
        // thread of the cooperative pool.
        let failures = await withTaskGroup(of: [String].self) { group in
            for worker in 0..<4 {
                group.addTask {
                    await Self.onThread {
                        var failures: [String] = []
                        for round in 0..<40 {
                            do {
                                switch (worker + round) % 3 {
                                case 0:
                                    let secret = Array(repeating: UInt8(round), count: 32)
                                    let sealed = try aes.seal(secret, associatedData: [])
                                    if try aes.open(sealed, associatedData: []) != secret { failures.append("open") }
                                case 1: _ = try ec.sign(digest: Array(repeating: UInt8(round), count: 32))
                                default: _ = try PKCS11AESKey.find(uri, in: token)
                                }
                            } catch {
                                failures.append("\(error)")
                            }
                        }
                        return failures
                    }
                }
            }
            for index in 0..<6 {
                group.addTask {
                    await Self.onThread {
                        do {
                            let label = SoftHSM.uniqueLabel("beside-\(index)")
                            if index.isMultiple(of: 2) {
                                _ = try token.generateAESKey(label: label)
                            } else {
                                _ = try token.generateECKeyPair(label: label)
                            }
                            return []
                        } catch {
                            return ["generate: \(error)"]
                        }
                    }
                }
            }
            return await group.reduce(into: [String]()) { $0 += $1 }
        }
        #expect(failures.isEmpty, "\(failures)")
    }

    /// Runs `body` on a thread of its own and returns what it returned.
    static func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: body()) }
        }
    }

    @Test("missing pieces are refused with what is missing")
    func refusals() throws {
        #expect { try PKCS11Module.load(path: "/nonexistent/module.so") } throws: {
            String(describing: $0).contains("/nonexistent/module.so")
        }
        #expect { try PKCS11Module.load(path: "/usr/lib/x86_64-linux-gnu/libz.so.1") } throws: {
            String(describing: $0).contains("not a PKCS#11 module")
        }
        let module = try PKCS11Module.load(path: SoftHSM.modulePath)
        #expect { try module.token(label: "no-such-token", pin: SoftHSM.pin) } throws: {
            String(describing: $0).contains("no token labelled 'no-such-token'")
        }
        // Two tokens of one label: neither is chosen.
        #expect { try module.token(label: SoftHSM.twinLabel, pin: SoftHSM.pin) } throws: {
            String(describing: $0).contains("2 tokens labelled '\(SoftHSM.twinLabel)': add 'serial=' to the URI")
        }
        #expect { try module.token(label: SoftHSM.tokenLabel, pin: "wrong") } throws: {
            ($0 as? PKCS11Error)?.isPINRefused == true
        }
        #expect { try PKCS11ECPrivateKey.find(try PKCS11URI(hsm.uri("no-such-key")), in: token) } throws: {
            String(describing: $0).contains("no private key 'no-such-key'")
        }
        let aes = SoftHSM.uniqueLabel("aes")
        _ = try token.generateAESKey(label: aes)
        #expect { try PKCS11ECPrivateKey.find(try PKCS11URI(hsm.uri(aes)), in: token) } throws: {
            String(describing: $0).contains("no private key")
        }
    }
}

extension Array where Element: Equatable {
    fileprivate func containsSequence(_ other: [Element]) -> Bool {
        guard other.count <= count else { return false }
        return (0...(count - other.count)).contains { Array(self[$0..<($0 + other.count)]) == other }
    }
}
