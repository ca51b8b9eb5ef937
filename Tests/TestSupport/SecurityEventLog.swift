import Logging
import Synchronization

/// Collects the security events (`logger.security`, metadata key `security.event`) logged through its logger, so a
/// test can check that an operator would see one; everything else logged is dropped.
public final class SecurityEventLog: Sendable {
    /// One security event as logged.
    public struct Event: Sendable {
        /// The `security.event` value.
        public var name: String
        public var level: Logger.Level
        /// The event's metadata, `security.event` included.
        public var metadata: Logger.Metadata
    }

    private let storage = Mutex<[Event]>([])

    public init() {}

    /// The events logged so far, oldest first.
    public var events: [Event] { storage.withLock { $0 } }

    /// The events named `name`.
    public func events(named name: String) -> [Event] { events.filter { $0.name == name } }

    /// A logger (at `trace`) that records into this log.
    public var logger: Logger {
        var logger = Logger(label: "security-events") { _ in Handler(log: self) }
        logger.logLevel = .trace
        return logger
    }

    private struct Handler: LogHandler {
        let log: SecurityEventLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let metadata = metadata.merging(event.metadata ?? [:]) { $1 }
            guard let name = metadata["security.event"] else { return }
            log.storage.withLock {
                $0.append(Event(name: "\(name)", level: event.level, metadata: metadata))
            }
        }
    }
}
