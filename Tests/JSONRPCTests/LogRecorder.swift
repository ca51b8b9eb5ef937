import Logging
import Synchronization

/// A log handler that keeps every event, so tests can see what reached the server log.
final class LogRecorder: Sendable {
    struct Entry: Sendable {
        var level: Logger.Level
        var message: String
        var metadata: Logger.Metadata
    }

    private let storage = Mutex<[Entry]>([])

    /// Everything logged so far.
    var entries: [Entry] { storage.withLock { $0 } }

    /// A logger writing into this recorder.
    func logger() -> Logger {
        Logger(label: "JSONRPCTests.recorded") { _ in Handler(recorder: self) }
    }

    fileprivate func append(_ entry: Entry) {
        storage.withLock { $0.append(entry) }
    }

    private struct Handler: LogHandler {
        let recorder: LogRecorder
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            recorder.append(
                Entry(
                    level: event.level,
                    message: event.message.description,
                    metadata: metadata.merging(event.metadata ?? [:]) { $1 }
                ))
        }
    }
}
