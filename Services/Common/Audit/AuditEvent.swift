import Foundation

/// A security-relevant action a service records in its audit trail (docs/compliance.md lists every type).
///
/// Recording is cheap and never waits: ``AuditTrail/record(_:)`` appends the event to memory, and the trail's writer
/// pseudonymises, chains and commits it within ``AuditConfiguration/flushInterval``.
public struct AuditEvent: Sendable {
    /// The action, dotted and stable, e.g. `auth.signin.succeeded`, `push.send`, `store.fetch`.
    public var type: String
    /// What the action concerned; person identifiers are pseudonymised before anything is stored.
    public var fields: AuditFields
    /// When it happened.
    public var time: Date

    /// - Parameters:
    ///   - type: the action's stable name.
    ///   - fields: its fields (see ``AuditValue``).
    ///   - time: when it happened; now by default.
    public init(_ type: String, _ fields: AuditFields = [:], time: Date = Date()) {
        self.type = type
        self.fields = fields
        self.time = time
    }
}
