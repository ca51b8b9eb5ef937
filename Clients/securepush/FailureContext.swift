import SecurePushClient

/// What the CLI was doing when a call failed: which services it talks to and as whom, so the hint can say what to do.
struct FailureContext {
    /// Who the CLI acts as.
    enum Role {
        /// `register` and `login`: a person with a username and password.
        case account
        /// `listen` and `fetch`: a device on the session `login` saved.
        case device
        /// `send`, `status`, `demo --against-running`: an app backend; `source` says where its credentials came from.
        case backend(source: String)
    }

    /// Where the services are.
    var endpoints: SecurePushEndpoints
    /// Who the CLI acts as.
    var role: Role
    /// What to say when the service answers `-32004` (what was not found, and why that may be); `nil` says
    /// "not found: " and the service's words.
    var notFound: String?
    /// What to do when the service answers `-32004`.
    var notFoundHint: String?
    /// What to do when the service answers `-32009`.
    var conflictHint: String?
    /// The command's flag for each wire field it sets (`payload` → `--message`): a `-32602` names the flag the user
    /// typed, not the field they never saw.
    var flags: [String: String] = [:]

    init(
        _ endpoints: SecurePushEndpoints, role: Role, notFoundHint: String? = nil, conflictHint: String? = nil
    ) {
        self.endpoints = endpoints
        self.role = role
        self.notFoundHint = notFoundHint
        self.conflictHint = conflictHint
    }

    /// The URL the CLI uses for a service, by the name `-32050` errors give it.
    func url(of service: String) -> String? {
        switch service {
        case "auth": endpoints.auth
        case "notification-store": endpoints.store
        case "push-dispatch": endpoints.dispatch
        default: nil
        }
    }

    /// The variable and flag that point the CLI at a service.
    static func setting(of service: String) -> (variable: String, flag: String)? {
        switch service {
        case "auth": ("SECUREPUSH_AUTH_URL", "--auth-url")
        case "notification-store": ("SECUREPUSH_STORE_URL", "--store-url")
        case "push-dispatch": ("SECUREPUSH_DISPATCH_URL", "--dispatch-url")
        default: nil
        }
    }
}
