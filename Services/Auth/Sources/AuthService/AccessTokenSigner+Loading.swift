import Foundation
import Logging
import PKCS11
import ServiceCore
import SharedModels

extension AccessTokenSigner {
    /// Chooses the signing key at start and records it in the repository.
    ///
    /// With `moduleKey`, the key in the PKCS#11 module signs (only its public half is stored). With `keyFile`, that PEM
    /// is the key. Without either, the newest generated key in the database is reused, or a new
    /// one is generated and stored — refused in production, where keys must be managed outside the database.
    /// Keys replaced by this choice stay published while tokens they signed may still be valid.
    public static func load(
        keyFile: String?,
        moduleKey: PKCS11ECPrivateKey? = nil,
        isProduction: Bool,
        repository: any AuthRepository,
        tokenTTL: Int,
        now: Date,
        logger: Logger
    ) async throws -> AccessTokenSigner {
        let stored = try await repository.signingKeys()
        let key: SigningKey
        let storedPEM: String?
        if let moduleKey {
            key = try SigningKey(module: moduleKey)
            storedPEM = nil
            logger.debug("auth.signing_key.loaded", metadata: ["auth.kid": "\(key.kid)", "auth.key": "pkcs11"])
        } else if let keyFile {
            key = try loadPEMFile(keyFile)
            storedPEM = nil
            logger.debug(
                "auth.signing_key.loaded", metadata: ["auth.kid": "\(key.kid)", "auth.key_file": "\(keyFile)"])
        } else if isProduction {
            throw ConfigurationError(
                "SECUREPUSH_AUTH_SIGNING_KEY_FILE (or SECUREPUSH_AUTH_SIGNING_KEY, a PEM file or a pkcs11: URI) must be "
                    + "set when SECUREPUSH_ENV=production: point it to an ES256 (P-256) key, e.g. a PEM from "
                    + "`openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out auth-signing-key.pem`"
            )
        } else if let reusable = stored.first(where: { $0.privateKeyPEM != nil }), let pem = reusable.privateKeyPEM {
            do {
                key = try SigningKey(pem: pem)
            } catch {
                throw ConfigurationError(
                    "the signing key '\(reusable.kid)' stored in the auth database cannot be read: \(error)")
            }
            storedPEM = pem
        } else {
            key = SigningKey.generate()
            storedPEM = key.pemRepresentation
            logger.notice("auth.signing_key.generated", metadata: ["auth.kid": "\(key.kid)"])
        }
        let record = SigningKeyRecord(
            kid: key.kid, privateKeyPEM: storedPEM, x: key.publicJWK.x, y: key.publicJWK.y, createdAt: now)
        try await repository.activateSigningKey(record, at: now)

        let retired = try await repository.signingKeys().compactMap { stored -> RetiredKey? in
            guard stored.kid != key.kid, let retiredAt = stored.retiredAt else { return nil }
            return RetiredKey(jwk: Auth.PublicJWK(x: stored.x, y: stored.y, kid: stored.kid), retiredAt: retiredAt)
        }
        return await AccessTokenSigner(currentKey: key, retiredKeys: retired, tokenTTL: tokenTTL)
    }

    static func loadPEMFile(_ path: String) throws -> SigningKey {
        let pem: String
        do {
            pem = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ConfigurationError(
                "SECUREPUSH_AUTH_SIGNING_KEY_FILE: cannot read '\(path)': \(error.localizedDescription)")
        }
        do {
            return try SigningKey(pem: pem)
        } catch {
            throw ConfigurationError(
                "SECUREPUSH_AUTH_SIGNING_KEY_FILE: '\(path)' does not hold an ES256 (P-256) private key in PEM form")
        }
    }
}
