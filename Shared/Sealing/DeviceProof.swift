import Crypto
import Foundation
import SharedModels

/// The `SecurePush-Device-Proof` header: a compact JWS (modelled on RFC 9449 DPoP) a device signs with its private key
/// to fetch a sealed copy without an access token.
///
/// Header `{"typ":"securepush-proof+jwt","alg":"ES256"}`; claims `{nid, did, iat, jti}`; signature JOSE raw r‖s.
public enum DeviceProof {
    /// The HTTP header carrying the proof.
    public static let headerName = "SecurePush-Device-Proof"
    /// The JWS `typ`.
    public static let type = "securepush-proof+jwt"
    /// The JWS `alg`.
    public static let algorithm = "ES256"
    /// How far `iat` may be from the verifier's clock, either way.
    public static let window: TimeInterval = 60
    /// Fewest random bytes a `jti` carries.
    public static let minimumJTIBytes = 16
    /// Longest proof accepted, in bytes (a real one is ~300).
    public static let maxLength = 2048

    /// The claims of a proof.
    public struct Claims: Codable, Sendable, Hashable {
        /// The notification id (`store.get`'s `notificationId`).
        public var nid: String
        /// The device id (`store.get`'s `deviceId`).
        public var did: String
        /// When the proof was made, in Unix seconds.
        public var iat: Int64
        /// A unique id (≥ 16 random bytes, base64url): a proof is accepted once.
        public var jti: String

        public init(nid: String, did: String, iat: Int64, jti: String) {
            self.nid = nid
            self.did = did
            self.iat = iat
            self.jti = jti
        }
    }

    private struct Header: Codable {
        var typ: String
        var alg: String
    }

    /// Makes a proof for fetching `notificationID` as `deviceID`, signed with the device's key.
    public static func make(
        notificationID: String, deviceID: String, issuedAt: Date, key: P256.Signing.PrivateKey
    ) throws -> String {
        let jti = Data((0..<minimumJTIBytes).map { _ in UInt8.random(in: .min ... .max) }).base64URLEncodedString()
        let claims = Claims(nid: notificationID, did: deviceID, iat: Int64(issuedAt.timeIntervalSince1970), jti: jti)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let header = Data(#"{"typ":"\#(type)","alg":"\#(algorithm)"}"#.utf8).base64URLEncodedString()
        let signingInput = header + "." + (try encoder.encode(claims)).base64URLEncodedString()
        let signature = try key.signature(for: Data(signingInput.utf8))
        return signingInput + "." + signature.rawRepresentation.base64URLEncodedString()
    }

    /// The claims of `proof` once it is shown to be a well-formed ES256 proof signed by `key` for exactly
    /// `notificationID` and `deviceID`, made within ``window`` of `now`. Replays are the caller's to refuse (by `jti`).
    public static func verify(
        _ proof: String, key: DevicePublicKey, notificationID: String, deviceID: String, now: Date
    ) throws(DeviceProofError) -> Claims {
        guard proof.utf8.count <= maxLength else { throw .malformed("longer than \(maxLength) bytes") }
        let parts = proof.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
            let headerData = Data(strictBase64URL: String(parts[0])),
            let claimsData = Data(strictBase64URL: String(parts[1])),
            let signatureData = Data(strictBase64URL: String(parts[2]))
        else { throw .malformed("not a compact JWS in base64url") }
        guard let header = try? JSONDecoder().decode(Header.self, from: headerData) else {
            throw .malformed("header is not {typ, alg}")
        }
        guard header.typ == type else { throw .wrongType }
        guard header.alg == algorithm else { throw .wrongAlgorithm }
        guard signatureData.count == 64,
            let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signatureData),
            key.signing.isValidSignature(signature, for: Data("\(parts[0]).\(parts[1])".utf8))
        else { throw .badSignature }
        guard let claims = try? JSONDecoder().decode(Claims.self, from: claimsData) else {
            throw .malformed("claims are not {nid, did, iat, jti}")
        }
        guard claims.nid == notificationID, claims.did == deviceID else { throw .wrongSubject }
        guard abs(now.timeIntervalSince1970 - TimeInterval(claims.iat)) <= window else { throw .stale }
        guard claims.jti.utf8.count <= 128, let jti = Data(strictBase64URL: claims.jti),
            jti.count >= minimumJTIBytes
        else { throw .malformed("jti must be at least \(minimumJTIBytes) random bytes in base64url") }
        return claims
    }
}

/// Why a device proof was refused; every case is a `-32001` on the wire, the reason goes to the security log.
public enum DeviceProofError: Error, Hashable, CustomStringConvertible {
    case malformed(String)
    case wrongType
    case wrongAlgorithm
    case badSignature
    case wrongSubject
    case stale
    case replayed

    /// A short, stable reason for logs and metrics.
    public var description: String {
        switch self {
        case .malformed(let detail): "malformed: \(detail)"
        case .wrongType: "typ is not \(DeviceProof.type)"
        case .wrongAlgorithm: "alg is not \(DeviceProof.algorithm)"
        case .badSignature: "signature does not verify with the device's key"
        case .wrongSubject: "nid or did differ from the params"
        case .stale: "iat is more than \(Int(DeviceProof.window)) s from now"
        case .replayed: "jti was already used"
        }
    }
}
