import Crypto
import DevelopmentPKI
import Foundation
import TestSupport
import Testing

@Suite("Generated deployment secrets (securepush certs --secrets-dir)")
struct DevelopmentSecretsTests {
    @Test("each secret is generated once, private to its owner, long enough for production, and kept after")
    func generatesOnce() throws {
        let directory = TemporaryDirectory.processRootURL.appendingPathComponent("secrets-\(UUID().uuidString)")
            .path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let secrets = DevelopmentSecrets(directory: directory)
        let first = try secrets.ensure()
        #expect(Set(first.generated) == Set(DevelopmentSecrets.File.allCases))
        #expect(first.kept.isEmpty)
        let mode = { (path: String) in
            (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue
        }
        #expect(try mode(directory) == 0o700)
        var contents: [DevelopmentSecrets.File: String] = [:]
        for file in DevelopmentSecrets.File.allCases {
            #expect(try mode(secrets.path(file)) == 0o600)
            contents[file] = try String(contentsOfFile: secrets.path(file), encoding: .utf8)
        }
        for file in [DevelopmentSecrets.File.backendClientSecret, .dispatchClientSecret] {
            let secret = try #require(contents[file]).trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(secret.utf8.count >= 32)
            #expect(!secret.contains("change-me"))
        }
        #expect(contents[.backendClientSecret] != contents[.dispatchClientSecret])
        _ = try P256.Signing.PrivateKey(pemRepresentation: try #require(contents[.authSigningKey]))
        // The store's and the apps' key files: one `<key id> <base64 of 32 bytes>` line each, different keys.
        var keys: [String] = []
        for file in [DevelopmentSecrets.File.storeKeys, .appsKeys] {
            let lines = try #require(contents[file]).split(separator: "\n").filter { !$0.hasPrefix("#") }
            #expect(lines.count == 1)
            let fields = try #require(lines.first).split(separator: " ")
            #expect(fields.count == 2)
            #expect(Data(base64Encoded: String(fields.last ?? ""))?.count == 32)
            keys.append(String(fields.last ?? ""))
        }
        #expect(Set(keys).count == 2)
        #expect(contents[.appsKeys]?.contains("SECUREPUSH_APPS_KEY_FILE") == true)

        let second = try secrets.ensure()
        #expect(second.generated.isEmpty)
        for file in DevelopmentSecrets.File.allCases {
            #expect(try String(contentsOfFile: secrets.path(file), encoding: .utf8) == contents[file])
        }
    }
}
