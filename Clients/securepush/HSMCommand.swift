import ArgumentParser
import Crypto
import Foundation
import PKCS11
import ServiceCore

/// `securepush hsm`: keys in a PKCS#11 module (issue 32).
struct HSMCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hsm",
        abstract: "Make and inspect keys in a PKCS#11 module (SECUREPUSH_PKCS11_MODULE, SECUREPUSH_PKCS11_PIN_FILE).",
        subcommands: [Keygen.self, PublicKey.self])

    /// `securepush hsm keygen`.
    struct Keygen: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Generate a key inside the module: sensitive and not extractable, so it never leaves it.",
            discussion: """
                --type ec makes an ECDSA P-256 key pair, for SECUREPUSH_AUTH_SIGNING_KEY or SECUREPUSH_AUDIT_KEY \
                (its public half is printed, PEM). --type aes makes an AES-256 key that wraps other keys, for \
                SECUREPUSH_STORE_KEY_WRAPPING_KEY or SECUREPUSH_APPS_KEY_WRAPPING_KEY. An object with the same \
                label is never replaced.
                """)

        @Option(help: "the key's PKCS#11 URI, e.g. pkcs11:token=securepush;object=auth-signing")
        var key: String
        @Option(help: "ec (ECDSA P-256, signs) or aes (AES-256, wraps)")
        var type: KeyType

        enum KeyType: String, ExpressibleByArgument, CaseIterable {
            case ec, aes
        }

        func run() async throws {
            let (uri, token) = try HSMCommand.open(key)
            guard let label = uri.object else {
                throw CLIError("the URI names no object label", hint: "add ';object=<label>' to the URI")
            }
            do {
                switch type {
                case .ec:
                    let key = try token.generateECKeyPair(label: label)
                    let publicKey = try P256.Signing.PublicKey(x963Representation: key.publicKeyX963)
                    FileHandle.standardError.write(Data("generated \(uri.description); its public half:\n".utf8))
                    print(publicKey.pemRepresentation)
                case .aes:
                    _ = try token.generateAESKey(label: label)
                    print("generated \(uri.description)")
                }
            } catch {
                throw CLIError("cannot generate the key: \(error)", hint: "check the token's free space and the label")
            }
        }
    }

    /// `securepush hsm public-key`.
    struct PublicKey: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the public half of an ECDSA P-256 key in the module (PEM): for `securepush audit "
                + "verify --public-key` and for verifying tokens elsewhere.")

        @Option(help: "the key's PKCS#11 URI")
        var key: String

        func run() async throws {
            let (uri, _) = try HSMCommand.open(key)
            let module = HardwareModuleConfiguration(environment: ServiceEnvironment())
            do {
                let key = try module.signingKey(uri, variable: "--key")
                print(try P256.Signing.PublicKey(x963Representation: key.publicKeyX963).pemRepresentation)
            } catch {
                throw CLIError("cannot read the key: \(error)")
            }
        }
    }

    /// The URI and its token, logged in; a refusal names the variable to fix.
    static func open(_ text: String) throws -> (PKCS11URI, PKCS11Token) {
        do {
            let uri = try HardwareModuleConfiguration.uri(text, variable: "--key")
            let token = try HardwareModuleConfiguration(environment: ServiceEnvironment()).token(
                for: uri, variable: "--key")
            return (uri, token)
        } catch {
            throw CLIError(error.description, hint: "set SECUREPUSH_PKCS11_MODULE and SECUREPUSH_PKCS11_PIN_FILE")
        }
    }
}
