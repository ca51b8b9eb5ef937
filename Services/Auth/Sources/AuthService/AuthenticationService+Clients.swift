import Foundation
import SharedModels

extension AuthenticationService {
    /// An access token for a service client, carrying the client's scopes (never `user`).
    ///
    /// A wrong id and a wrong secret both throw the same `-32001` after the same bcrypt work.
    public func clientToken(clientId: String, clientSecret: String) async throws -> Auth.ClientToken.Result {
        // Hashed: throttle memory stays bounded however long the names sent are.
        let throttleKey = OpaqueToken.storageHash(of: "client:" + clientId)
        try await throttle.check(throttleKey, at: now())
        guard let scopes = try await clients.authenticate(clientId: clientId, secret: clientSecret) else {
            await throttle.recordFailure(throttleKey, at: now())
            logger.debug("auth.client_token.failed")
            throw AuthError.invalidClientCredentials
        }
        await throttle.reset(throttleKey)
        let token = try await signer.sign(subject: clientId, scopes: scopes, at: now())
        return Auth.ClientToken.Result(
            accessToken: token, tokenType: "Bearer", expiresIn: signer.tokenTTL, scopes: scopes)
    }

    /// Creates a service client (the `securepush clients create` command); see `ClientRegistry.createClient`.
    public func createClient(id: String, scopes: [String], secret: String?) async throws -> ClientRegistry.Credentials {
        try await clients.createClient(id: id, scopes: scopes, secret: secret)
    }

    /// The public keys that verify access tokens, current key first.
    public func publicKeys() -> [Auth.PublicJWK] {
        signer.publicKeys(at: now())
    }
}
