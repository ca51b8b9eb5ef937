/// What ``AuditVerifier`` found in one service's trail.
public struct AuditVerification: Sendable {
    /// The first thing wrong: where, and what.
    public struct Fault: Sendable, Hashable, CustomStringConvertible {
        /// The service whose trail it is in.
        public var service: String
        /// The chain.
        public var chain: String
        /// The sequence number of the first bad (or missing) entry; 0 when the fault is not one entry's (a malformed
        /// checkpoint file line).
        public var sequence: Int64
        /// What is wrong, e.g. `hash does not match the entry's body`.
        public var reason: String

        public var description: String { "\(service) chain \(chain) entry \(sequence): \(reason)" }
    }

    /// The service.
    public var service: String
    /// Chains checked.
    public var chains = 0
    /// Entries checked.
    public var entries = 0
    /// Checkpoints checked (database and files together, each counted once).
    public var checkpoints = 0
    /// Entries after their chain's last checkpoint: the unsigned window, which truncation could remove undetected.
    public var unsignedEntries = 0
    /// The first fault, if any.
    public var fault: Fault?

    public init(service: String) {
        self.service = service
    }
}
