import Crypto
import Foundation
import PrivateFiles
import X509

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes a development PKI to disk and keeps it current: a CA, and one TLS server certificate per service.
///
/// Files, in the certificates directory: `ca.pem` (the CA certificate, what clients trust), `<service>.pem` and
/// `<service>-key.pem` (0600). The CA key, `ca-key.pem` (0600), goes to its own directory so that it can stay out of
/// the services' reach. Running again is safe: valid files are kept, and only missing, foreign, expiring or
/// too-narrow certificates are issued anew, by the same CA.
public struct DevelopmentCertificates: Sendable {
    /// One certificate to keep: the file name stem and the hosts it must cover.
    public struct Request: Sendable, Hashable {
        /// The file name stem, e.g. `auth` for `auth.pem` and `auth-key.pem`.
        public var name: String
        /// The DNS names and addresses the certificate covers; the first is its common name.
        public var hosts: [SubjectHost]

        public init(name: String, hosts: [SubjectHost]) {
            self.name = name
            self.hosts = hosts
        }
    }

    /// What ``ensure(_:now:)`` did to each file stem.
    public struct Report: Sendable, Equatable {
        /// Certificates (and the CA, as `ca`) written by this run.
        public var issued: [String] = []
        /// Certificates (and the CA) that were valid and kept.
        public var kept: [String] = []
    }

    /// Where `ca.pem` and the service certificates go.
    public var certificatesDirectory: String
    /// Where `ca-key.pem` goes.
    public var caKeyDirectory: String
    /// Certificates expiring sooner than this are renewed.
    public var renewBefore: Duration = .seconds(30 * 86_400)

    public init(certificatesDirectory: String, caKeyDirectory: String) {
        self.certificatesDirectory = certificatesDirectory
        self.caKeyDirectory = caKeyDirectory
    }

    /// The CA certificate's path.
    public var caCertificatePath: String { path(certificatesDirectory, "ca.pem") }
    /// The CA key's path.
    public var caKeyPath: String { path(caKeyDirectory, "ca-key.pem") }
    /// The certificate path for a request name.
    public func certificatePath(_ name: String) -> String { path(certificatesDirectory, "\(name).pem") }
    /// The key path for a request name.
    public func keyPath(_ name: String) -> String { path(certificatesDirectory, "\(name)-key.pem") }

    /// Makes sure the CA and every requested certificate exist and are valid, issuing what is missing.
    ///
    /// - Throws: ``DevelopmentPKIError`` when `ca.pem` exists without its key (the CA cannot be reused, and replacing
    ///   it silently would break every client that trusts it), or a file cannot be read or written.
    public func ensure(_ requests: [Request], now: Date = Date()) throws -> Report {
        var report = Report()
        for request in requests {
            guard !request.name.isEmpty, request.name.allSatisfy({ $0.isLetter || $0.isNumber || "-_.".contains($0) }),
                request.name != "ca"
            else {
                throw DevelopmentPKIError("'\(request.name)' cannot name a certificate file")
            }
        }
        try PrivateFile.createDirectory(certificatesDirectory, permissions: 0o755)
        try PrivateFile.createDirectory(caKeyDirectory)

        let ca: DevelopmentCertificateAuthority
        let manager = FileManager.default
        switch (manager.fileExists(atPath: caCertificatePath), manager.fileExists(atPath: caKeyPath)) {
        case (true, true):
            ca = try DevelopmentCertificateAuthority(
                certificatePEM: try read(caCertificatePath), privateKeyPEM: try read(caKeyPath))
            report.kept.append("ca")
        case (true, false):
            throw DevelopmentPKIError(
                "\(caCertificatePath) exists but its key \(caKeyPath) does not: remove the certificates to start over")
        case (false, _):
            ca = try DevelopmentCertificateAuthority(commonName: "SecurePush Development CA", now: now)
            try PrivateFile.write(Data(ca.privateKeyPEM.utf8), to: caKeyPath)
            try PrivateFile.write(Data(try ca.certificatePEM.utf8), to: caCertificatePath, permissions: 0o644)
            report.issued.append("ca")
        }

        for request in requests {
            if isCurrent(request, ca: ca, now: now) {
                report.kept.append(request.name)
                continue
            }
            let key = P256.Signing.PrivateKey()
            let certificate = try ca.issueServerCertificate(
                hosts: request.hosts, publicKey: Certificate.PublicKey(key.publicKey), now: now)
            try PrivateFile.write(Data(key.pemRepresentation.utf8), to: keyPath(request.name))
            try PrivateFile.write(
                Data(try certificate.serializeAsPEM().pemString.utf8), to: certificatePath(request.name),
                permissions: 0o644)
            report.issued.append(request.name)
        }
        return report
    }

    /// Whether the files for `request` hold a key and a certificate from `ca` that covers its hosts for long enough.
    private func isCurrent(_ request: Request, ca: DevelopmentCertificateAuthority, now: Date) -> Bool {
        guard let certificate = try? Certificate(pemEncoded: read(certificatePath(request.name))),
            let key = try? P256.Signing.PrivateKey(pemRepresentation: read(keyPath(request.name))),
            certificate.publicKey == Certificate.PublicKey(key.publicKey),
            certificate.issuer == ca.certificate.subject,
            let authorityKeyID = try? certificate.extensions.authorityKeyIdentifier?.keyIdentifier,
            authorityKeyID == (try? ca.certificate.extensions.subjectKeyIdentifier?.keyIdentifier),
            ca.certificate.publicKey.isValidSignature(certificate.signature, for: certificate),
            certificate.notValidAfter > now.addingTimeInterval(renewBefore.timeInterval),
            let names = try? certificate.extensions.subjectAlternativeNames
        else { return false }
        return Set(request.hosts.map(\.generalName)).isSubset(of: Set(names))
    }

    private func path(_ directory: String, _ file: String) -> String {
        URL(fileURLWithPath: directory).appendingPathComponent(file).path
    }

    private func read(_ path: String) throws -> String {
        do {
            return try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw DevelopmentPKIError("cannot read \(path): \(error.localizedDescription)")
        }
    }
}
