import Logging
import Synchronization

/// Keeps the messages logged through it, so a test can see that something happened in the background.
final class LogRecorder: Sendable {
    private let messages = Mutex<[String]>([])

    /// A logger at `trace` level writing into this recorder.
    var logger: Logger {
        var logger = Logger(label: "apns-test") { _ in RecordingLogHandler(recorder: self) }
        logger.logLevel = .trace
        return logger
    }

    func record(_ message: String) {
        messages.withLock { $0.append(message) }
    }

    /// How many times `message` was logged.
    func count(_ message: String) -> Int {
        messages.withLock { $0.filter { $0 == message }.count }
    }
}

struct RecordingLogHandler: LogHandler {
    let recorder: LogRecorder
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        recorder.record(event.message.description)
    }
}
