import Foundation
import JWTKit
import ServiceCore

/// The parts of a Google service-account key file (the JSON the Firebase console downloads) FCM needs.
public struct FCMServiceAccount: Sendable, Hashable {
    /// Google's token endpoint, used when the file has no `token_uri`.
    public static let defaultTokenURI = "https://oauth2.googleapis.com/token"

    /// The Firebase project (`project_id`); `SECUREPUSH_FCM_PROJECT_ID` may override it.
    public var projectID: String?
    /// The account's e-mail (`client_email`): the assertion's issuer.
    public var clientEmail: String
    /// The key's id (`private_key_id`), sent as the assertion's `kid` when present.
    public var privateKeyID: String?
    /// The RSA private key (`private_key`, PEM).
    public var privateKeyPEM: String
    /// Where assertions are exchanged for access tokens (`token_uri`).
    public var tokenURI: String

    public init(
        projectID: String?, clientEmail: String, privateKeyID: String? = nil, privateKeyPEM: String,
        tokenURI: String = FCMServiceAccount.defaultTokenURI
    ) {
        self.projectID = projectID
        self.clientEmail = clientEmail
        self.privateKeyID = privateKeyID
        self.privateKeyPEM = privateKeyPEM
        self.tokenURI = tokenURI
    }

    private struct File: Decodable {
        var type: String?
        var project_id: String?
        var private_key_id: String?
        var private_key: String?
        var client_email: String?
        var token_uri: String?
    }

    /// Reads and checks a service-account key file; errors name `variable` (the setting that pointed to it).
    public static func load(path: String, variable: String) throws -> FCMServiceAccount {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw ConfigurationError("\(variable): cannot read '\(path)'")
        }
        return try parse(data, source: "\(variable) ('\(path)')")
    }

    /// Parses a service-account key file's contents; errors mention `source`.
    static func parse(_ data: Data, source: String) throws -> FCMServiceAccount {
        guard let file = try? JSONDecoder().decode(File.self, from: data) else {
            throw ConfigurationError("\(source) is not a service-account JSON key file")
        }
        if let type = file.type, type != "service_account" {
            throw ConfigurationError("\(source) has type '\(type)'; FCM needs a 'service_account' key file")
        }
        guard let email = file.client_email, !email.isEmpty else {
            throw ConfigurationError("\(source) has no client_email")
        }
        guard let pem = file.private_key, !pem.isEmpty else {
            throw ConfigurationError("\(source) has no private_key")
        }
        let account = FCMServiceAccount(
            projectID: file.project_id.flatMap { $0.isEmpty ? nil : $0 },
            clientEmail: email,
            privateKeyID: file.private_key_id.flatMap { $0.isEmpty ? nil : $0 },
            privateKeyPEM: pem,
            tokenURI: file.token_uri.flatMap { $0.isEmpty ? nil : $0 } ?? defaultTokenURI
        )
        do {
            _ = try account.signingKey()
        } catch {
            throw ConfigurationError("\(source): private_key is not a PEM RSA private key of at least 2048 bits")
        }
        return account
    }

    /// The private key, parsed.
    func signingKey() throws -> Insecure.RSA.PrivateKey {
        try Insecure.RSA.PrivateKey(pem: privateKeyPEM)
    }
}
