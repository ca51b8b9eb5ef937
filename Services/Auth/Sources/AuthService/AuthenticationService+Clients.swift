import Foundation
import Logging
import ServiceCore
import SharedModels

extension AuthenticationService {
    /// Runs one password check (bcrypt) for `address`: counted against its per-minute budget first, then queued
    /// fairly with everyone else's (``PasswordHashingGate``).
    func checkPassword<T: Sendable>(from address: String?, _ work: @Sendable () async throws -> T) async throws -> T {
        try await limiter.admitPasswordCheck(from: address, at: now())
        return try await hashing.run(for: address, work)
    }

    /// An access token for a service client, carrying the client's scopes (never `user`) and, when it is bound to
    /// apps, their ids as the `apps` claim.
    ///
    /// A wrong id and a wrong secret both throw the same `-32001` after the same bcrypt work.
    /// Limited like `login` (account = client id), so failures from elsewhere never refuse the right secret.
    public func clientToken(clientId: String, clientSecret: String, from address: String? = nil) async throws
        -> Auth.ClientToken.Result
    {
        let attempt: SignInLimiter.Attempt
        do {
            attempt = try await limiter.reserveAttempt(.client, account: clientId, from: address, at: now())
        } catch {
            audit?.record(
                "auth.client_token.refused",
                ["client": .text(clientId), "address": .address(address), "reason": .text("throttled")])
            throw error
        }
        let grant: ClientRegistry.Grant?
        do {
            let clients = clients
            grant = try await checkPassword(from: address) {
                try await clients.grant(clientId: clientId, secret: clientSecret)
            }
        } catch {
            await limiter.abandoned(attempt, at: now())
            throw error
        }
        guard let grant else {
            logger.debug("auth.client_token.failed")
            audit?.record(
                "auth.client_token.failed",
                ["client": .text(clientId), "address": .address(address), "reason": .text("invalidCredentials")])
            throw AuthError.invalidClientCredentials
        }
        await limiter.succeeded(attempt, at: now())
        let scopes = grant.scopes
        let token = try await signer.sign(subject: clientId, scopes: scopes, apps: grant.apps, at: now())
        var metadata: Logger.Metadata = [
            LogMetadataKey.clientID: "\(clientId)", "auth.scopes": "\(scopes.joined(separator: " "))",
            LogMetadataKey.clientAddress: "\(address ?? "in-process")",
        ]
        if !grant.apps.isEmpty { metadata["auth.apps"] = "\(grant.apps.joined(separator: " "))" }
        logger.security(.init("auth.client_token.issued"), metadata: metadata)
        audit?.record(
            "auth.client_token.issued",
            [
                "client": .text(clientId), "scopes": .texts(scopes), "apps": .texts(grant.apps),
                "address": .address(address),
            ])
        return Auth.ClientToken.Result(
            accessToken: token, tokenType: "Bearer", expiresIn: signer.tokenTTL, scopes: scopes)
    }

    /// Creates a service client (the `securepush clients create` command); see `ClientRegistry.createClient`.
    public func createClient(id: String, scopes: [String], apps: [String] = [], secret: String?) async throws
        -> ClientRegistry.Credentials
    {
        try await clients.createClient(id: id, scopes: scopes, apps: apps, secret: secret)
    }

    /// The public keys that verify access tokens, this replica's current key first.
    ///
    /// Read from the repository on each call, so that with several replicas every one of them publishes every key any
    /// of them may be signing with: a key another replica activated after this one started, and retired keys until
    /// their last tokens expire. The keys this replica knew at start are added in case the database is unreachable.
    public func publicKeys() async -> [Auth.PublicJWK] {
        let now = now()
        var keys = signer.publicKeys(at: now)
        guard let stored = try? await repository.signingKeys() else { return keys }
        let lifetime = TimeInterval(signer.tokenTTL)
        for key in stored where !keys.contains(where: { $0.kid == key.kid }) {
            guard key.retiredAt.map({ $0.addingTimeInterval(lifetime) > now }) ?? true else { continue }
            keys.append(Auth.PublicJWK(x: key.x, y: key.y, kid: key.kid))
        }
        return keys
    }
}
