import Foundation
import SealedPush
import SecurePushClient
import SharedModels
import TestSupport
import Testing

@Suite("SDK device key: creation, storage, proofs, opening sealed copies")
struct DeviceKeyTests {
    static let nid = "c0ffee00-1234-4abc-8def-0123456789ab"
    static let did = "9b2f8c3e-6a1d-4e7b-8c5f-2d3e4f5a6b7c"

    func withDirectory<T>(_ body: (URL) throws -> T) throws -> T {
        let directory = TemporaryDirectory.processRootURL.appendingPathComponent("device-key-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        return try body(directory)
    }

    @Test("a new key is written once, mode 0600, and the same key comes back")
    func createAndReload() throws {
        try withDirectory { directory in
            let path = directory.appendingPathComponent("credentials.json.device-key").path
            let created = try DeviceKey.loadOrCreate(path: path)
            let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
            #expect(mode == 0o600)
            #expect(try DeviceKey.loadOrCreate(path: path).publicKey == created.publicKey)
            #expect(try DevicePublicKey(base64URL: created.publicKey).x963Representation.count == 65)
            #expect(DeviceKey().publicKey != created.publicKey)
        }
    }

    @Test("a key file that holds no key is an error, never silently replaced")
    func corruptFile() throws {
        try withDirectory { directory in
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let path = directory.appendingPathComponent("key").path
            try Data("not a key\n".utf8).write(to: URL(fileURLWithPath: path))
            #expect(throws: SecurePushClientError.unreadableDeviceKey(path: path)) {
                try DeviceKey.loadOrCreate(path: path)
            }
            #expect(try String(contentsOfFile: path, encoding: .utf8) == "not a key\n")
        }
    }

    @Test("a payload sealed to the device's public key opens with the device key, and only with it")
    func sealingRoundTrip() throws {
        let key = DeviceKey()
        let copy = try SealedPayloadCipher.seal(
            Data("Ihr Code: 482913".utf8), to: try DevicePublicKey(base64URL: key.publicKey), notificationID: Self.nid,
            deviceID: Self.did)
        #expect(try key.open(copy, notificationId: Self.nid) == "Ihr Code: 482913")
        #expect(throws: (any Error).self) { try DeviceKey().open(copy, notificationId: Self.nid) }
        #expect(throws: (any Error).self) { try key.open(copy, notificationId: UUID().uuidString.lowercased()) }
    }

    @Test("the device's proofs verify with its public key, for exactly that notification and device")
    func proofs() throws {
        let key = DeviceKey()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let proof = try key.proof(notificationId: Self.nid, deviceId: Self.did, now: now)
        let publicKey = try DevicePublicKey(base64URL: key.publicKey)
        let claims = try DeviceProof.verify(
            proof, key: publicKey, notificationID: Self.nid, deviceID: Self.did, now: now)
        #expect(claims.iat == 1_800_000_000)
        #expect(throws: DeviceProofError.badSignature) {
            try DeviceProof.verify(
                proof, key: try DevicePublicKey(base64URL: DeviceKey().publicKey), notificationID: Self.nid,
                deviceID: Self.did, now: now)
        }
    }
}
