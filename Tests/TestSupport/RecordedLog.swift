import Logging
import Synchronization

/// Keeps every log event written through its logger (level, message, metadata), so a test can check what an
/// operator would see, security events above all.
public final class RecordedLog: Sendable {
    /// One logged event.
    public struct Event: Sendable {
        public var level: Logger.Level
        public var message: String
        public var metadata: Logger.Metadata
    }

    private let events = Mutex<[Event]>([])

    public init() {}

    /// Everything logged so far.
    public var all: [Event] { events.withLock { $0 } }

    /// How many events had exactly this message.
    public func count(_ message: String) -> Int {
        all.filter { $0.message == message }.count
    }

    /// The events logged with `security.event` = `name`.
    public func securityEvents(_ name: String) -> [Event] {
        all.filter { $0.metadata["security.event"]?.description == name }
    }

    /// A logger at `trace` level writing into this log.
    public func logger(label: String = "recorded") -> Logger {
        var logger = Logger(label: label) { _ in Handler(log: self) }
        logger.logLevel = .trace
        return logger
    }

    private struct Handler: LogHandler {
        let log: RecordedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let entry = Event(
                level: event.level, message: event.message.description,
                metadata: metadata.merging(event.metadata ?? [:]) { $1 })
            log.events.withLock { $0.append(entry) }
        }
    }
}
