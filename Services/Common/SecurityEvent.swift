import Logging

/// A security-relevant event operators alert on: logged at `notice` with the metadata key `security.event`.
///
/// Names are stable, dotted and documented in docs/security.md (e.g. `auth.login.throttled`); metadata never carries
/// secrets, only ids and reasons.
public struct SecurityEvent: Sendable, Hashable, CustomStringConvertible {
    /// The event's stable name, the value of `security.event`.
    public let name: String

    public init(_ name: String) {
        self.name = name
    }

    public var description: String { name }
}

extension Logger {
    /// Logs `event` at `notice` with `security.event` set to its name, plus `metadata`.
    public func security(_ event: SecurityEvent, metadata: Logger.Metadata = [:]) {
        var metadata = metadata
        metadata[LogMetadataKey.securityEvent] = "\(event.name)"
        notice("\(event.name)", metadata: metadata)
    }
}
