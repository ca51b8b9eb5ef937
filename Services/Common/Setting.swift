/// One variable a SecurePush program reads from its environment, declared once in ``SettingCatalog``: its name,
/// default, who reads it and what it means. The catalog generates `docs/configuration.md` and tells a set variable that
/// nothing reads (a typo) from a real one.
public struct Setting: Sendable, Hashable {
    /// Where a setting belongs: one section of `docs/configuration.md` each.
    public enum Group: String, CaseIterable, Sendable {
        /// Read by every service (listening, limits, databases, logs, metrics, production mode).
        case shared
        /// Read by auth.
        case auth
        /// Read by notification-store.
        case store
        /// Read by push-dispatch.
        case dispatch
        /// push-dispatch's push providers (APNs, FCM, WNS, Web Push).
        case providers
        /// Read by the `securepush` CLI's client commands.
        case cli
        /// Standard variables of the runtime and of OpenTelemetry, read as their owners define them.
        case runtime
        /// Read by the compose files and their smoke test, not by the programs.
        case compose
        /// Read by the test suite and the benchmarks only.
        case development

        /// The section's heading in `docs/configuration.md`.
        public var title: String {
            switch self {
            case .shared: "Every service"
            case .auth: "auth"
            case .store: "notification-store"
            case .dispatch: "push-dispatch"
            case .providers: "Push providers (push-dispatch)"
            case .cli: "The securepush CLI"
            case .runtime: "Runtime and OpenTelemetry"
            case .compose: "Docker Compose (read by the compose files, not by the programs)"
            case .development: "Tests and benchmarks"
            }
        }
    }

    /// The variable's name, exactly as set (`SECUREPUSH_MAX_BATCH`).
    public let name: String
    /// The section it is documented in.
    public let group: Group
    /// The value used when it is unset, as documented (Markdown).
    public let defaultValue: String
    /// The programs that read it (Markdown).
    public let usedBy: String
    /// What it means and which values it takes (Markdown, one paragraph).
    public let summary: String
    /// Whether its value is a secret (never logged, and better passed as a file where a `_FILE` variant exists).
    public let isSecret: Bool

    public init(
        _ name: String, group: Group, default defaultValue: String, usedBy: String, isSecret: Bool = false,
        _ summary: String
    ) {
        self.name = name
        self.group = group
        self.defaultValue = defaultValue
        self.usedBy = usedBy
        self.summary = summary
        self.isSecret = isSecret
    }
}
