import Crypto
import DevelopmentPKI
import Foundation
import NIOSSL
import X509

/// A throwaway PKI for TLS tests, generated at test time: a CA and a server certificate it signed,
/// written as PEM files into a fresh temporary directory.
///
/// The server certificate is for `localhost` with the SANs `DNS:localhost`, `IP:127.0.0.1` and `IP:::1`,
/// so clients may connect by name or by loopback address.
public struct TestCertificates: Sendable {
    /// The temporary directory holding the files.
    public let directory: String
    /// The CA certificate (PEM): what clients trust.
    public let caCertificatePath: String
    /// The server's leaf certificate (PEM), signed by the CA.
    public let serverCertificatePath: String
    /// The server's P-256 private key (PKCS#8 PEM).
    public let serverKeyPath: String

    /// Generates a new CA and server certificate in a new temporary directory.
    public static func make() throws -> TestCertificates {
        let directory = try TemporaryDirectory(prefix: "securepush-certs").path
        let ca = try DevelopmentCertificateAuthority(commonName: "SecurePush Test CA", validity: .seconds(7 * 86_400))
        let serverKey = P256.Signing.PrivateKey()
        let serverCertificate = try ca.issueServerCertificate(
            hosts: SubjectHost.loopback,
            publicKey: Certificate.PublicKey(serverKey.publicKey)
        )

        let certificates = TestCertificates(
            directory: directory,
            caCertificatePath: directory + "/ca.pem",
            serverCertificatePath: directory + "/server.pem",
            serverKeyPath: directory + "/server-key.pem"
        )
        try write(ca.certificate.serializeAsPEM().pemString, to: certificates.caCertificatePath)
        try write(serverCertificate.serializeAsPEM().pemString, to: certificates.serverCertificatePath)
        try write(serverKey.pemRepresentation, to: certificates.serverKeyPath)
        return certificates
    }

    /// Generates a CA unrelated to any other and returns the path of its certificate (PEM) in a new temporary
    /// directory: a client trusting only it must refuse every ``TestCertificates`` server.
    public static func makeUnrelatedCA() throws -> String {
        let directory = try TemporaryDirectory(prefix: "securepush-certs").path
        let ca = try DevelopmentCertificateAuthority(commonName: "Unrelated Test CA", validity: .seconds(7 * 86_400))
        let path = directory + "/unrelated-ca.pem"
        try write(ca.certificate.serializeAsPEM().pemString, to: path)
        return path
    }

    /// A server TLS configuration presenting the server certificate; the caller sets ALPN protocols if needed.
    public func makeServerTLSConfiguration() throws -> TLSConfiguration {
        TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(serverCertificatePath).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: serverKeyPath, format: .pem))
        )
    }

    /// Deletes the temporary directory.
    public func remove() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    private static func write(_ pem: String, to path: String) throws {
        try Data(pem.utf8).write(to: URL(fileURLWithPath: path))
    }
}
