import Logging

extension Logger {
    /// A logger that drops everything, to keep test output readable.
    static let quiet = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
}
