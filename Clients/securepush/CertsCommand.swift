import ArgumentParser
import DevelopmentPKI
import Foundation

/// `securepush certs`: a development CA and TLS server certificates for the services.
struct CertsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "certs",
        abstract: "Create (or renew) a development CA and a TLS server certificate per service.",
        discussion: """
            Writes <out>/ca.pem (trust it in clients: SECUREPUSH_CA_FILE), <out>/<service>.pem and \
            <out>/<service>-key.pem (SECUREPUSH_TLS_CERT_FILE / SECUREPUSH_TLS_KEY_FILE), and the CA key \
            <ca-dir>/ca-key.pem. Each certificate covers the service's name, localhost, 127.0.0.1, ::1 and every \
            --host. Safe to run again: valid certificates are kept; missing, expiring or too-narrow ones are issued \
            anew by the same CA. For development only: in production use certificates from your own PKI.
            """
    )

    @Option(help: "Directory for ca.pem and the service certificates and keys.")
    var out: String = "./.securepush/certs"

    @Option(help: "Directory for the CA's private key (default: the --out directory).")
    var caDir: String?

    @Option(name: .customLong("service"), help: "A service to issue a certificate for (repeatable).")
    var services: [String] = ["auth", "notification-store", "push-dispatch"]

    @Option(name: .customLong("host"), help: "An extra DNS name or IP address every certificate covers (repeatable).")
    var hosts: [String] = []

    @Option(
        help: """
            Also generate the deployment's secrets here, once: backend-client-secret, dispatch-client-secret, \
            auth-signing-key.pem, store-keys and apps-keys (read through SECUREPUSH_*_SECRET_FILE, \
            SECUREPUSH_AUTH_SIGNING_KEY_FILE, SECUREPUSH_STORE_KEY_FILE and SECUREPUSH_APPS_KEY_FILE).
            """)
    var secretsDir: String?

    func run() throws {
        do {
            let extra = try hosts.map(SubjectHost.init)
            let requests = try services.map { service in
                DevelopmentCertificates.Request(
                    name: service, hosts: uniqued([try SubjectHost(service)] + SubjectHost.loopback + extra))
            }
            let pki = DevelopmentCertificates(certificatesDirectory: out, caKeyDirectory: caDir ?? out)
            let report = try pki.ensure(requests)
            for name in report.issued {
                emit("issued \(name == "ca" ? pki.caCertificatePath : pki.certificatePath(name))")
            }
            for name in report.kept {
                emit("kept   \(name == "ca" ? pki.caCertificatePath : pki.certificatePath(name))")
            }
            if let secretsDir {
                let secrets = DevelopmentSecrets(directory: secretsDir)
                let (generated, kept) = try secrets.ensure()
                for file in generated { emit("generated \(secrets.path(file))") }
                for file in kept { emit("kept   \(secrets.path(file))") }
            }
        } catch let error as DevelopmentPKIError {
            throw CLIError(error.description)
        }
    }

    private func uniqued(_ hosts: [SubjectHost]) -> [SubjectHost] {
        var seen = Set<SubjectHost>()
        return hosts.filter { seen.insert($0).inserted }
    }
}
