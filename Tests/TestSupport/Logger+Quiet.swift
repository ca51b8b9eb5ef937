import Logging

extension Logger {
    /// A logger that drops everything, so expected failures do not clutter test output.
    public static let quiet = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
}
