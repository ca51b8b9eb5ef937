import Logging

extension ServiceRunner {
    /// How log lines are written: `SECUREPUSH_LOG_FORMAT`, `text` (swift-log's default lines, the default) or `json`
    /// (one JSON object per line, ``JSONLogHandler``).
    public enum LogFormat: String, Sendable, CaseIterable {
        case text
        case json

        /// Reads `SECUREPUSH_LOG_FORMAT` (case-insensitive); anything else is a `ConfigurationError` naming it.
        public init(environment: ServiceEnvironment) throws {
            self = try environment.choice(SettingCatalog.logFormat, as: LogFormat.self)
        }

        /// A logger labelled `label` writing in this format, with `metadataProvider`'s metadata (the active span's
        /// ids) on every line.
        public func logger(label: String, metadataProvider: Logger.MetadataProvider? = nil) -> Logger {
            switch self {
            case .text:
                metadataProvider.map { Logger(label: label, metadataProvider: $0) } ?? Logger(label: label)
            case .json:
                Logger(label: label) { label in JSONLogHandler(label: label, metadataProvider: metadataProvider) }
            }
        }
    }
}
