import Crypto
import Foundation
import SealedPush
import SharedModels
import Testing

@Suite("device proofs: ES256 compact JWS, typ securepush-proof+jwt")
struct DeviceProofTests {
    /// Made once with Python's `cryptography` (an independent ES256 and JWS implementation) from the P-256 key of
    /// RFC 6979 A.2.5 (d = c9afa9d8…), header `{"typ":"securepush-proof+jwt","alg":"ES256"}` and fixed claims.
    enum Independent {
        static let publicKey =
            "BGD-1LolWp0xyWHrdMY1bWjASbiSO2H6bOZpYi5g8p-2eQP-EAi4vJmkGunpVii8ZPLxsgwtfp9Rd6PClNRGIpk"
        static let privateScalar = "c9afa9d845ba75166b5c215767b1d6934e50c3db36e89b127b8a622b120f6721"
        static let nid = "c0ffee00-1234-4abc-8def-0123456789ab"
        static let did = "9b2f8c3e-6a1d-4e7b-8c5f-2d3e4f5a6b7c"
        static let iat = Date(timeIntervalSince1970: 1_795_860_000)
        static let claims =
            "eyJuaWQiOiJjMGZmZWUwMC0xMjM0LTRhYmMtOGRlZi0wMTIzNDU2Nzg5YWIiLCJkaWQiOiI5YjJmOGMzZS02YTFkLTRlN2ItOGM1Zi0y"
            + "ZDNlNGY1YTZiN2MiLCJpYXQiOjE3OTU4NjAwMDAsImp0aSI6InFOM0ZzMHYyWWI5a1RqNGw4WHdSMUEifQ"
        static let proof =
            "eyJ0eXAiOiJzZWN1cmVwdXNoLXByb29mK2p3dCIsImFsZyI6IkVTMjU2In0." + claims
            + ".U3_uSaUOxLxs3XWJ8Nis1jVeGxfkJ8tJBvDEJ7Qk3D29YeN3IVBuaAh2IWiiWNKS2Sjun90oVtGkvjUUbBuc6g"
        /// The same claims, header `{"typ":"dpop+jwt","alg":"ES256"}`, validly signed.
        static let wrongType =
            "eyJ0eXAiOiJkcG9wK2p3dCIsImFsZyI6IkVTMjU2In0." + claims
            + ".kYTTsMKdatbhszacBM6kkcpgMGH20EUdupl9jk5VP_X5lXz2m1-LA2ggUTqWjXL8mdGsBDZ33L_ZKdOqXkTzEA"
        /// The same claims, header `{"typ":"securepush-proof+jwt","alg":"ES384"}`, signed with the P-256 key.
        static let wrongAlgorithm =
            "eyJ0eXAiOiJzZWN1cmVwdXNoLXByb29mK2p3dCIsImFsZyI6IkVTMzg0In0." + claims
            + ".VXIVpvXjZYOyL8atzpNzFh27TAd44MkjbtdIogAv4HODpojvCUoLZBsJErDFR10h2iOFUVsOaSGd06cbc403zA"
    }

    static func verify(
        _ proof: String, key: String = Independent.publicKey, nid: String = Independent.nid,
        did: String = Independent.did, now: Date = Independent.iat
    ) throws(DeviceProofError) -> DeviceProof.Claims {
        try DeviceProof.verify(
            proof, key: try! DevicePublicKey(base64URL: key), notificationID: nid, deviceID: did, now: now)
    }

    @Test("a proof made by an independent implementation verifies, claims intact")
    func independentProof() throws {
        let claims = try Self.verify(Independent.proof)
        #expect(
            claims
                == DeviceProof.Claims(
                    nid: Independent.nid, did: Independent.did, iat: 1_795_860_000, jti: "qN3Fs0v2Yb9kTj4l8XwR1A"))
        // Within 60 s either way of the verifier's clock.
        _ = try Self.verify(Independent.proof, now: Independent.iat.addingTimeInterval(60))
        _ = try Self.verify(Independent.proof, now: Independent.iat.addingTimeInterval(-60))
    }

    @Test("our proofs verify, and carry a fresh 16-byte jti each time")
    func ownProof() throws {
        let key = try P256.Signing.PrivateKey(rawRepresentation: HPKEVectorTests.hex(Independent.privateScalar))
        let first = try DeviceProof.make(
            notificationID: Independent.nid, deviceID: Independent.did, issuedAt: Independent.iat, key: key)
        let second = try DeviceProof.make(
            notificationID: Independent.nid, deviceID: Independent.did, issuedAt: Independent.iat, key: key)
        let a = try Self.verify(first)
        let b = try Self.verify(second)
        #expect(a.jti != b.jti)
        #expect(Data(strictBase64URL: a.jti)?.count == 16)
        #expect(first.split(separator: ".").first == Independent.proof.split(separator: ".").first)
    }

    @Test("each flaw is refused for its own reason")
    func refusals() {
        let other = P256.Signing.PrivateKey().publicKey.x963Representation.base64URLEncodedString()
        #expect(throws: DeviceProofError.wrongType) { try Self.verify(Independent.wrongType) }
        #expect(throws: DeviceProofError.wrongAlgorithm) { try Self.verify(Independent.wrongAlgorithm) }
        #expect(throws: DeviceProofError.badSignature) { try Self.verify(Independent.proof, key: other) }
        #expect(throws: DeviceProofError.wrongSubject) {
            try Self.verify(Independent.proof, nid: "7d9e5a10-3b2c-4f8e-a1d6-9c8b7a6f5e4d")
        }
        #expect(throws: DeviceProofError.wrongSubject) {
            try Self.verify(Independent.proof, did: "1e2d3c4b-5a69-4788-97a6-b5c4d3e2f1a0")
        }
        #expect(throws: DeviceProofError.stale) {
            try Self.verify(Independent.proof, now: Independent.iat.addingTimeInterval(61))
        }
        #expect(throws: DeviceProofError.stale) {
            try Self.verify(Independent.proof, now: Independent.iat.addingTimeInterval(-61))
        }
        // A signature from another token on these claims does not carry over.
        let parts = Independent.proof.split(separator: ".")
        let swapped = "\(parts[0]).\(parts[1]).\(Independent.wrongType.split(separator: ".")[2])"
        #expect(throws: DeviceProofError.badSignature) { try Self.verify(swapped) }
        for garbage in ["", "a.b", "a.b.c.d", String(repeating: "A", count: 5000), "!!.!!.!!"] {
            #expect(throws: DeviceProofError.self) { try Self.verify(garbage) }
        }
    }
}
