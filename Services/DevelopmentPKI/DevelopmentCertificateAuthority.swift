import Crypto
import Foundation
import SwiftASN1
import X509

/// A private certificate authority for development and tests: a P-256 key and a self-signed CA certificate that
/// issues TLS server certificates.
///
/// Not for production: real deployments present certificates from their own PKI (see compose/README.md).
public struct DevelopmentCertificateAuthority: Sendable {
    /// The CA's signing key.
    public let privateKey: P256.Signing.PrivateKey
    /// The self-signed CA certificate: what clients trust.
    public let certificate: Certificate

    /// Creates a new CA valid from an hour ago (clock skew) for `validity`.
    public init(commonName: String, validity: Duration = .seconds(10 * 365 * 86_400), now: Date = Date()) throws {
        privateKey = P256.Signing.PrivateKey()
        let name = try DistinguishedName {
            OrganizationName("SecurePush Development")
            CommonName(commonName)
        }
        let publicKey = Certificate.PublicKey(privateKey.publicKey)
        certificate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: publicKey,
            notValidBefore: now.addingTimeInterval(-3600),
            notValidAfter: now.addingTimeInterval(validity.timeInterval),
            issuer: name,
            subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                SubjectKeyIdentifier(hash: publicKey)
            },
            issuerPrivateKey: Certificate.PrivateKey(privateKey)
        )
    }

    /// Loads a CA written earlier by ``certificatePEM`` and ``privateKeyPEM``.
    ///
    /// - Throws: ``DevelopmentPKIError`` when the key does not belong to the certificate or the certificate is not a CA.
    public init(certificatePEM: String, privateKeyPEM: String) throws {
        certificate = try Certificate(pemEncoded: certificatePEM)
        privateKey = try P256.Signing.PrivateKey(pemRepresentation: privateKeyPEM)
        guard certificate.publicKey == Certificate.PublicKey(privateKey.publicKey) else {
            throw DevelopmentPKIError("the CA key does not match the CA certificate")
        }
        guard case .isCertificateAuthority = try certificate.extensions.basicConstraints else {
            throw DevelopmentPKIError("the CA certificate is not a certificate authority")
        }
    }

    /// The CA certificate as PEM.
    public var certificatePEM: String {
        get throws { try certificate.serializeAsPEM().pemString }
    }

    /// The CA key as PKCS#8 PEM. Keep it private: whoever holds it can impersonate every service.
    public var privateKeyPEM: String { privateKey.pemRepresentation }

    /// Issues a TLS server certificate for `hosts` (DNS names and IP addresses, the first is the common name),
    /// valid from an hour ago for `validity` but never past the CA's own expiry.
    public func issueServerCertificate(
        hosts: [SubjectHost],
        publicKey: Certificate.PublicKey,
        validity: Duration = .seconds(825 * 86_400),
        now: Date = Date()
    ) throws -> Certificate {
        guard let first = hosts.first else { throw DevelopmentPKIError("a server certificate needs at least one host") }
        let notValidAfter = min(now.addingTimeInterval(validity.timeInterval), certificate.notValidAfter)
        let authorityKeyID = try certificate.extensions.subjectKeyIdentifier?.keyIdentifier
        return try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: publicKey,
            notValidBefore: now.addingTimeInterval(-3600),
            notValidAfter: notValidAfter,
            issuer: certificate.subject,
            subject: try DistinguishedName { CommonName(first.description) },
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames(hosts.map(\.generalName))
                AuthorityKeyIdentifier(keyIdentifier: authorityKeyID)
            },
            issuerPrivateKey: Certificate.PrivateKey(privateKey)
        )
    }
}

extension Duration {
    /// The duration in seconds as a `TimeInterval`.
    var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
