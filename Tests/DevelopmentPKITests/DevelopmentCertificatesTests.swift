import Crypto
import DevelopmentPKI
import Foundation
import TestSupport
import Testing
import X509

@Suite("Development certificates on disk")
struct DevelopmentCertificatesTests {
    let directory = TemporaryDirectory.processRootURL.appendingPathComponent("pki-\(UUID().uuidString)").path

    func pki() -> DevelopmentCertificates {
        DevelopmentCertificates(certificatesDirectory: directory + "/certs", caKeyDirectory: directory + "/ca")
    }

    func request(_ name: String, extra: [String] = []) throws -> DevelopmentCertificates.Request {
        .init(name: name, hosts: [try SubjectHost(name)] + SubjectHost.loopback + (try extra.map(SubjectHost.init)))
    }

    func permissions(_ path: String) throws -> Int {
        try (FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    func certificate(_ path: String) throws -> Certificate {
        try Certificate(pemEncoded: String(contentsOfFile: path, encoding: .utf8))
    }

    @Test("the first run issues a CA and one certificate per service, keys readable by their owner only")
    func firstRun() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let pki = pki()
        let report = try pki.ensure([try request("auth"), try request("notification-store")])
        #expect(report.issued == ["ca", "auth", "notification-store"])
        #expect(report.kept.isEmpty)
        #expect(try permissions(pki.caKeyPath) == 0o600)
        #expect(try permissions(pki.keyPath("auth")) == 0o600)
        #expect(try permissions(pki.certificatePath("auth")) == 0o644)
        #expect(try permissions(directory + "/ca") == 0o700)

        let ca = try certificate(pki.caCertificatePath)
        let auth = try certificate(pki.certificatePath("auth"))
        #expect(auth.issuer == ca.subject)
        #expect(ca.publicKey.isValidSignature(auth.signature, for: auth))
        let names = try #require(try auth.extensions.subjectAlternativeNames)
        #expect(names.contains(.dnsName("auth")))
        #expect(names.contains(.dnsName("localhost")))
        #expect(!names.contains(.dnsName("notification-store")))
        #expect(try auth.extensions.basicConstraints == .notCertificateAuthority)
        let key = try P256.Signing.PrivateKey(
            pemRepresentation: String(contentsOfFile: pki.keyPath("auth"), encoding: .utf8))
        #expect(auth.publicKey == Certificate.PublicKey(key.publicKey))
    }

    @Test("running again keeps every valid file byte for byte")
    func secondRunKeeps() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let pki = pki()
        _ = try pki.ensure([try request("auth")])
        let before = try String(contentsOfFile: pki.certificatePath("auth"), encoding: .utf8)
        let report = try pki.ensure([try request("auth")])
        #expect(report.issued.isEmpty)
        #expect(report.kept == ["ca", "auth"])
        #expect(try String(contentsOfFile: pki.certificatePath("auth"), encoding: .utf8) == before)
    }

    @Test("a new host, a lost key or an expiring certificate is issued anew by the same CA")
    func reissues() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let pki = pki()
        _ = try pki.ensure([try request("auth"), try request("push-dispatch")])
        let caBefore = try String(contentsOfFile: pki.caCertificatePath, encoding: .utf8)

        let widened = try pki.ensure([
            try request("auth", extra: ["auth.example.com", "10.0.0.5"]), try request("push-dispatch"),
        ])
        #expect(widened.issued == ["auth"])
        let names = try #require(try certificate(pki.certificatePath("auth")).extensions.subjectAlternativeNames)
        #expect(names.contains(.dnsName("auth.example.com")))

        try FileManager.default.removeItem(atPath: pki.keyPath("push-dispatch"))
        #expect(try pki.ensure([try request("push-dispatch")]).issued == ["push-dispatch"])

        let nearExpiry = Date().addingTimeInterval(810 * 86_400)
        #expect(try pki.ensure([try request("push-dispatch")], now: nearExpiry).issued == ["push-dispatch"])
        #expect(try String(contentsOfFile: pki.caCertificatePath, encoding: .utf8) == caBefore)
    }

    @Test("a certificate from another CA is replaced")
    func foreignCertificate() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let pki = pki()
        _ = try pki.ensure([try request("auth")])
        let other = DevelopmentCertificates(
            certificatesDirectory: directory + "/other", caKeyDirectory: directory + "/other-ca")
        _ = try other.ensure([try request("auth")])
        try FileManager.default.removeItem(atPath: pki.certificatePath("auth"))
        try FileManager.default.copyItem(atPath: other.certificatePath("auth"), toPath: pki.certificatePath("auth"))
        try FileManager.default.removeItem(atPath: pki.keyPath("auth"))
        try FileManager.default.copyItem(atPath: other.keyPath("auth"), toPath: pki.keyPath("auth"))

        #expect(try pki.ensure([try request("auth")]).issued == ["auth"])
        let ca = try certificate(pki.caCertificatePath)
        let auth = try certificate(pki.certificatePath("auth"))
        #expect(ca.publicKey.isValidSignature(auth.signature, for: auth))
    }

    @Test("a CA certificate without its key is refused rather than silently replaced")
    func caWithoutKey() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let pki = pki()
        _ = try pki.ensure([try request("auth")])
        try FileManager.default.removeItem(atPath: pki.caKeyPath)
        #expect(throws: DevelopmentPKIError.self) { try pki.ensure([try request("auth")]) }
    }

    @Test("a file name that would escape the directory is refused", arguments: ["../auth", "", "ca", "a/b"])
    func badNames(name: String) throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(throws: DevelopmentPKIError.self) {
            try pki().ensure([.init(name: name, hosts: SubjectHost.loopback)])
        }
    }
}
