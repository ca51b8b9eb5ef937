import AuthService
import Crypto
import Foundation
import GRDB
import JWTKit
import PKCS11
import ServiceCore
import SharedModels
import SoftHSMFixture
import TestSupport
import Testing

@Suite("The token signing key in a PKCS#11 module (SoftHSM2)")
struct HardwareSigningKeyTests {
    let hsm: SoftHSM
    let token: PKCS11Token

    init() throws {
        (hsm, token) = try SoftHSM.sharedToken()
    }

    /// Auth configured as `SECUREPUSH_AUTH_SIGNING_KEY=pkcs11:…` would configure it.
    func configuration(databasePath: String, key label: String) throws -> AuthConfiguration {
        let environment = ServiceEnvironment(
            hsm.environment.merging([
                "SECUREPUSH_DATA_DIR": URL(fileURLWithPath: databasePath).deletingLastPathComponent().path,
                "SECUREPUSH_AUTH_SIGNING_KEY": hsm.uri(label), "SECUREPUSH_BCRYPT_COST": "10",
            ]) { _, new in new })
        var configuration = try AuthConfiguration(environment: environment)
        configuration.databasePath = databasePath
        return configuration
    }

    @Test("tokens are signed in the module: they verify against auth.keys and an independent verifier")
    func signsInModule() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let label = SoftHSM.uniqueLabel("auth")
        let key = try token.generateECKeyPair(label: label)
        let protection = try key.protection()
        #expect(protection.sensitive && !protection.extractable)

        let auth = try await AuthHarness.make(
            try configuration(databasePath: directory.file("auth.sqlite"), key: label))
        try await auth.register("dora")
        let grant = try await auth.login("dora")
        let published = try await auth.rpc.call(Auth.Keys.self, Empty()).keys
        let expected = try SigningKey(module: key)
        #expect(published.map(\.kid) == [expected.kid])
        #expect(try TokenHeader(of: grant.accessToken).kid == expected.kid)
        #expect(try await auth.verifier().verify(grant.accessToken).subject == grant.userId)
        // swift-crypto alone, from the published JWK: no code of ours in the check.
        #expect(try Self.verifiesIndependently(grant.accessToken, with: try #require(published.first)))
        // A refreshed token too.
        let refreshed = try await auth.refresh(grant.refreshToken)
        #expect(try Self.verifiesIndependently(refreshed.accessToken, with: try #require(published.first)))
        // Only the public half is in the database.
        let storedPEMs = try await auth.components.sqlite!.read { db in
            try String?.fetchAll(db, sql: "SELECT private_key_pem FROM signing_keys")
        }
        #expect(storedPEMs == [nil])
        #expect(await auth.components.health()["hsm"] == "ok")
    }

    @Test(
        "moving from a key file into the module, then rotating in the module: old keys stay published while their tokens live"
    )
    func migrationAndRotation() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let database = directory.file("auth.sqlite")
        let keyFile = directory.file("signing.pem")
        try ES256PrivateKey().pemRepresentation.write(toFile: keyFile, atomically: true, encoding: .utf8)
        let fromFile = try await AuthHarness.make(
            AuthHarness.configuration(databasePath: database, signingKeyFile: keyFile))
        try await fromFile.register("erin")
        let fileGrant = try await fromFile.login("erin")
        let fileKid = try TokenHeader(of: fileGrant.accessToken).kid

        let first = SoftHSM.uniqueLabel("auth-1")
        _ = try token.generateECKeyPair(label: first)
        let inModule = try await AuthHarness.make(try configuration(databasePath: database, key: first))
        let moduleGrant = try await inModule.login("erin")
        let firstKid = try TokenHeader(of: moduleGrant.accessToken).kid
        #expect(firstKid != fileKid)
        #expect(try await inModule.rpc.call(Auth.Keys.self, Empty()).keys.map(\.kid) == [firstKid, fileKid])
        #expect(try await inModule.verifier().verify(fileGrant.accessToken).subject == fileGrant.userId)

        let second = SoftHSM.uniqueLabel("auth-2")
        _ = try token.generateECKeyPair(label: second)
        let rotated = try await AuthHarness.make(try configuration(databasePath: database, key: second))
        let rotatedGrant = try await rotated.login("erin")
        let secondKid = try TokenHeader(of: rotatedGrant.accessToken).kid
        #expect(
            Set(try await rotated.rpc.call(Auth.Keys.self, Empty()).keys.map(\.kid)) == [secondKid, firstKid, fileKid])
        #expect(try await rotated.verifier().verify(moduleGrant.accessToken).subject == moduleGrant.userId)
    }

    @Test(
        "SECUREPUSH_AUTH_SIGNING_KEY takes a URI or a file; both it and the _FILE variable, or a bad URI, are refused")
    func settings() throws {
        let file = try AuthConfiguration(environment: ServiceEnvironment(["SECUREPUSH_AUTH_SIGNING_KEY": "/k.pem"]))
        #expect(file.signingKeyFile == "/k.pem")
        #expect(file.signingKeyURI == nil)
        let uri = try AuthConfiguration(
            environment: ServiceEnvironment(["SECUREPUSH_AUTH_SIGNING_KEY": "pkcs11:token=t;object=auth"]))
        #expect(uri.signingKeyURI?.object == "auth")
        #expect(uri.signingKeyFile == nil)
        #expect {
            try AuthConfiguration(
                environment: ServiceEnvironment([
                    "SECUREPUSH_AUTH_SIGNING_KEY": "/k.pem", "SECUREPUSH_AUTH_SIGNING_KEY_FILE": "/k.pem",
                ]))
        } throws: {
            String(describing: $0).contains("both set")
        }
        #expect {
            try AuthConfiguration(environment: ServiceEnvironment(["SECUREPUSH_AUTH_SIGNING_KEY": "pkcs11:object=x"]))
        } throws: {
            String(describing: $0).hasPrefix("SECUREPUSH_AUTH_SIGNING_KEY is not a valid PKCS#11 URI")
        }
    }

    @Test("a key the module lacks, or a wrong PIN, refuses the start naming the variable to fix")
    func refusals() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let missing = try configuration(databasePath: directory.file("auth.sqlite"), key: "no-such-key")
        await #expect {
            try await AuthHarness.make(missing)
        } throws: {
            String(describing: $0).hasPrefix("SECUREPUSH_AUTH_SIGNING_KEY: no private key 'no-such-key'")
        }
        let wrongPIN = directory.file("wrong-pin")
        try "0000\n".write(toFile: wrongPIN, atomically: true, encoding: .utf8)
        var configuration = try configuration(databasePath: directory.file("auth.sqlite"), key: "x")
        configuration.hardwareModule.pinFile = wrongPIN
        await #expect {
            try await AuthHarness.make(configuration)
        } throws: {
            String(describing: $0).hasPrefix("SECUREPUSH_PKCS11_PIN_FILE: token 'securepush' refused the PIN")
        }
    }

    /// Checks `token`'s ES256 signature with swift-crypto and the JWK's coordinates only.
    static func verifiesIndependently(_ token: String, with jwk: Auth.PublicJWK) throws -> Bool {
        let parts = token.split(separator: ".")
        guard parts.count == 3, let x = Data(base64URLEncoded: jwk.x), let y = Data(base64URLEncoded: jwk.y),
            let signature = Data(base64URLEncoded: String(parts[2]))
        else { return false }
        let publicKey = try P256.Signing.PublicKey(rawRepresentation: x + y)
        return publicKey.isValidSignature(
            try P256.Signing.ECDSASignature(rawRepresentation: signature), for: Data("\(parts[0]).\(parts[1])".utf8))
    }
}
