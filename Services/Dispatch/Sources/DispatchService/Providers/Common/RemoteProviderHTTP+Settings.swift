import Foundation
import NIOSSL
import ServiceCore

extension RemoteProviderHTTP {
    /// `value` as an `https://` URL without a trailing slash; throws naming `setting` otherwise.
    ///
    /// Plain http is refused: every request carries a bearer token.
    static func checkedHTTPSURL(_ value: String, setting: String) throws -> String {
        guard let components = URLComponents(string: value), components.scheme?.lowercased() == "https",
            let host = components.host, !host.isEmpty, components.user == nil, components.password == nil
        else {
            throw ConfigurationError("\(setting) must be an https:// URL, got '\(value)'")
        }
        return value.hasSuffix("/") ? String(value.dropLast()) : value
    }

    /// Checks that `path` holds at least one PEM certificate; throws naming `variable` otherwise.
    static func checkedCAFile(_ path: String?, variable: String) throws -> String? {
        guard let path else { return nil }
        let certificates = try? NIOSSLCertificate.fromPEMFile(path)
        guard let certificates, !certificates.isEmpty else {
            throw ConfigurationError("\(variable): '\(path)' is not a readable PEM certificate file")
        }
        return path
    }
}
