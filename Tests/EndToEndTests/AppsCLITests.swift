import Crypto
import DispatchService
import Foundation
import ServiceCore
import SharedModels
import TestSupport
import Testing

/// `securepush apps` on push-dispatch's SQLite database, as an operator runs it.
@Suite("securepush apps")
struct AppsCLITests {
    @Test(
        "create, list, show, rotate-credentials, rotate-key and delete work on the database; secrets come from files and are never printed"
    )
    func lifecycle() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let key = P256.Signing.PrivateKey()
        let keyFile = directory.path + "/AuthKey.p8"
        try key.pemRepresentation.write(toFile: keyFile, atomically: true, encoding: .utf8)
        let pemLine = try #require(key.pemRepresentation.split(separator: "\n").dropFirst().first.map(String.init))
        let dataDir = ["--data-dir", directory.path]
        let apns = [
            "--apns-key-file", keyFile, "--apns-key-id", "ABC123DEFG", "--apns-team-id", "TEAM123456", "--apns-topic",
            "com.bank.retail",
        ]

        let created = try await StoreKeysCLITests.securepush(
            ["apps", "create", "--id", "retail-ios", "--name", "Retail"] + apns + dataDir)
        #expect(created.status == 0, "\(created.output)")
        #expect(created.output.contains("created app 'retail-ios' (apns)"), "\(created.output)")
        #expect(created.output.contains("created the apps key file"), "\(created.output)")
        let keysPath = directory.path + "/" + AppsKeySource.generatedFileName
        #expect(FileManager.default.fileExists(atPath: keysPath))
        let mode = try FileManager.default.attributesOfItem(atPath: keysPath)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)

        let again = try await StoreKeysCLITests.securepush(
            ["apps", "create", "--id", "retail-ios", "--name", "Retail"] + apns + dataDir)
        #expect(again.status != 0)
        #expect(again.output.contains("exists"), "\(again.output)")
        let malformed = try await StoreKeysCLITests.securepush(
            ["apps", "create", "--id", "Retail", "--name", "Retail"] + apns + dataDir)
        #expect(malformed.status != 0)
        #expect(malformed.output.contains("--id"), "\(malformed.output)")
        let badKey = directory.path + "/not-a-key.p8"
        try "not a key".write(toFile: badKey, atomically: true, encoding: .utf8)
        let refused = try await StoreKeysCLITests.securepush(
            [
                "apps", "create", "--id", "broken", "--name", "Broken", "--apns-key-file", badKey, "--apns-key-id",
                "ABC123DEFG", "--apns-team-id", "TEAM123456", "--apns-topic", "com.bank.broken",
            ] + dataDir)
        #expect(refused.status != 0)
        #expect(refused.output.contains("apns.privateKey"), "\(refused.output)")

        let listed = try await StoreKeysCLITests.securepush(["apps", "list"] + dataDir)
        #expect(listed.output.contains("default\t"), "\(listed.output)")
        #expect(listed.output.contains("retail-ios\tRetail\trevision 1"), "\(listed.output)")
        let shown = try await StoreKeysCLITests.securepush(["apps", "show", "--id", "retail-ios"] + dataDir)
        #expect(shown.status == 0, "\(shown.output)")
        #expect(shown.output.contains("apns: team TEAM123456, key ABC123DEFG, topic com.bank.retail, sha256:"))
        #expect(!shown.output.contains(pemLine), "show must never print the key")

        let rotated = try await StoreKeysCLITests.securepush(
            ["apps", "rotate-credentials", "--id", "retail-ios"] + apns + dataDir)
        #expect(rotated.status == 0, "\(rotated.output)")
        #expect(rotated.output.contains("(revision 2)"), "\(rotated.output)")
        let rekeyed = try await StoreKeysCLITests.securepush(["apps", "rotate-key"] + dataDir)
        #expect(rekeyed.status == 0, "\(rekeyed.output)")
        #expect(rekeyed.output.contains("resealed 1 apps"), "\(rekeyed.output)")
        #expect(rekeyed.output.contains("no app is under an older key"), "\(rekeyed.output)")
        let added = try await StoreKeysCLITests.securepush(["apps", "rotate-key", "--add-only"] + dataDir)
        #expect(added.output.contains("1 apps still under older keys (retail-ios)"), "\(added.output)")
        let resealed = try await StoreKeysCLITests.securepush(["apps", "rotate-key", "--reseal-only"] + dataDir)
        #expect(resealed.output.contains("resealed 1 apps"), "\(resealed.output)")
        let ring = try EncryptionKeyFile(path: keysPath, purpose: .apps).load()
        #expect(ring.keys.count == 3)
        // Each change is in push-dispatch's audit trail, never a credential.
        let trail = try await StoreKeysCLITests.securepush(
            ["audit", "export", "--since", "1h", "--service", "push-dispatch"] + dataDir)
        let types = trail.output.split(separator: "\n").compactMap {
            $0.firstMatch(of: /"type":"([a-z._]+)"/)?.output.1
        }
        #expect(types.filter { $0 == "apps.created" }.count == 1, "\(types)")
        #expect(types.contains("apps.credentials_rotated"))
        #expect(types.filter { $0 == "apps.keys.rotated" }.count == 3)
        #expect(!trail.output.contains("TEAM123456"))

        // Nothing of the key in clear anywhere in the data directory's database files.
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path)
        where name.hasPrefix("dispatch.sqlite") {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: directory.path + "/" + name))
            #expect(bytes.range(of: Data(pemLine.utf8)) == nil, "\(name) holds the key in clear")
            #expect(bytes.range(of: Data("TEAM123456".utf8)) == nil, "\(name) holds the team id in clear")
        }
        // Still opens after the rotation, under the new key.
        let reshown = try await StoreKeysCLITests.securepush(["apps", "show", "--id", "retail-ios"] + dataDir)
        #expect(reshown.output.contains("revision 4"), "\(reshown.output)")

        let unconfirmed = try await StoreKeysCLITests.securepush(["apps", "delete", "--id", "retail-ios"] + dataDir)
        #expect(unconfirmed.status != 0, "no confirmation on standard input: nothing deleted")
        let deleted = try await StoreKeysCLITests.securepush(
            ["apps", "delete", "--id", "retail-ios", "--yes"] + dataDir)
        #expect(deleted.status == 0, "\(deleted.output)")
        let empty = try await StoreKeysCLITests.securepush(["apps", "list"] + dataDir)
        #expect(!empty.output.contains("retail-ios"), "\(empty.output)")
    }

    @Test("in production, an app cannot be created without SECUREPUSH_APPS_KEY_FILE")
    func productionNeedsTheKeyFile() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let keyFile = directory.path + "/AuthKey.p8"
        try P256.Signing.PrivateKey().pemRepresentation.write(toFile: keyFile, atomically: true, encoding: .utf8)
        let run = try await StoreKeysCLITests.securepush(
            [
                "apps", "create", "--id", "retail-ios", "--name", "Retail", "--apns-key-file", keyFile,
                "--apns-key-id", "ABC123DEFG", "--apns-team-id", "TEAM123456", "--apns-topic", "com.bank.retail",
                "--data-dir", directory.path,
            ], environment: ["SECUREPUSH_ENV": "production"])
        #expect(run.status != 0)
        #expect(run.output.contains("SECUREPUSH_APPS_KEY_FILE must be set"), "\(run.output)")
        #expect(!FileManager.default.fileExists(atPath: directory.file(AppsKeySource.generatedFileName)))
    }

    @Test(
        "securepush demo --second-app: the operator makes a second app and its client; each app's send reaches only its own device"
    )
    func demoWithTwoApps() async throws {
        let run = try await StoreKeysCLITests.securepush(["demo", "--second-app", "demo-partner"])
        #expect(run.status == 0, "\(run.output)")
        for step in [
            "0. apps create: app 'demo-partner'", "0. clients create: backend client 'demo-partner-backend'",
            "8. devices.webPushKey {appId: 'demo-partner'}", "9. devices.register {appId: 'demo-partner'}",
            "11. each device received only its own app's id",
            "12. push.send by 'demo-partner-backend' for the default app: refused (-32003",
            "demo complete for two apps",
        ] {
            #expect(run.output.contains(step), "missing '\(step)' in \(run.output)")
        }
    }
}
