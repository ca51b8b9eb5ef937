import Foundation
import ServiceCore
import Synchronization

/// Seals and opens webhooks' secrets with the apps key (`SECUREPUSH_APPS_KEY_FILE`, or the development default
/// `<data dir>/apps-keys`): a copy of the database alone signs nothing. The key file is read once, when first needed.
final class WebhookSecretSealer: Sendable {
    let keys: AppsKeySource
    let now: @Sendable () -> Date
    private let loaded = Mutex<AppCredentialSealer?>(nil)

    init(keys: AppsKeySource, now: @escaping @Sendable () -> Date) {
        self.keys = keys
        self.now = now
    }

    /// The sealer new secrets are sealed with: in development the key file is created when missing; production or
    /// PostgreSQL without `SECUREPUSH_APPS_KEY_FILE` is `-32050` naming it.
    func sealerCreatingKey() throws -> AppCredentialSealer {
        if let sealer = loaded.withLock({ $0 }) { return sealer }
        do {
            let sealer = try keys.sealerCreatingKey(now: now())
            loaded.withLock { $0 = sealer }
            return sealer
        } catch let error as ConfigurationError {
            throw DispatchError.dependencyUnavailable("SECUREPUSH_APPS_KEY_FILE", error.description)
        }
    }

    /// The sealer secrets are opened with; `nil` while there is no key (no secret can have been sealed).
    func sealer() throws -> AppCredentialSealer? {
        if let sealer = loaded.withLock({ $0 }) { return sealer }
        let sealer = try keys.sealer()
        if let sealer { loaded.withLock { $0 = sealer } }
        return sealer
    }

    /// `secret` sealed for `endpoint`.
    func seal(_ secret: WebhookSecret, for endpoint: WebhookEndpointRecord) throws -> String {
        try sealerCreatingKey().seal(Data(secret.text.utf8), context: endpoint.sealingContext)
    }

    /// The secrets that sign for `endpoint` at `now`: the current one, and the previous one during its overlap.
    func signingSecrets(of endpoint: WebhookEndpointRecord, now: Date) throws -> [WebhookSecret] {
        guard let sealer = try sealer() else {
            throw ConfigurationError("there is no apps key (SECUREPUSH_APPS_KEY_FILE) to open webhook secrets with")
        }
        var sealed = [endpoint.sealedSecret]
        if let previous = endpoint.sealedPreviousSecret, let until = endpoint.previousSecretUntil, until > now {
            sealed.append(previous)
        }
        return try sealed.map { value in
            let bytes = try sealer.open(value, context: endpoint.sealingContext, what: "the webhook's secret")
            guard let secret = WebhookSecret(String(decoding: bytes, as: UTF8.self)) else {
                throw ConfigurationError("the secret of webhook '\(endpoint.id)' is malformed")
            }
            return secret
        }
    }
}
