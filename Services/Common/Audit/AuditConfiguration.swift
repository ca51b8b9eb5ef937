import Foundation
import Logging
import PKCS11

/// How a service keeps its audit trail: where its checkpoints are signed and written, how often, and how far behind
/// the request path the writer may fall. Read from `SECUREPUSH_AUDIT_*` (docs/configuration.md).
public struct AuditConfiguration: Sendable {
    /// Where the checkpoint signing key comes from.
    public enum KeySource: Sendable {
        /// `SECUREPUSH_AUDIT_KEY_FILE`: must exist.
        case file(String)
        /// The development default, `<data dir>/audit-signing-key.pem`: generated (0600) on first start.
        case generatedFile(String)
        /// A key given directly (tests, embedding).
        case key(AuditSigningKey)
        /// `SECUREPUSH_AUDIT_KEY=pkcs11:…`: the key in a PKCS#11 module.
        case module(PKCS11URI, HardwareModuleConfiguration)
    }

    /// Where checkpoints are signed.
    public var key: KeySource
    /// The directory checkpoints are also written to, outside the database; `nil` writes none (tests).
    public var checkpointDirectory: String?
    /// A checkpoint after this many entries…
    public var checkpointEntries: Int
    /// …or after this long with entries not yet covered.
    public var checkpointInterval: Duration
    /// The longest an entry waits in memory before it is committed.
    public var flushInterval: Duration
    /// Most entries held in memory while the database cannot take them; beyond it new ones are dropped (and counted
    /// in `securepush_audit_dropped_total`).
    public var maxPending: Int
    /// How long entries wait for the keyring (auth) when it cannot answer, retried with backoff, before they are
    /// written under this process's own day key instead (unlinkable across processes, but never lost).
    public var keyWait: Duration = .seconds(60)
    /// How long entries are kept (`SECUREPUSH_RETAIN_AUDIT`); `nil` keeps them forever.
    public var retention: Duration?
    /// How often the retention is applied.
    public var retentionInterval: Duration = .seconds(600)

    /// - Parameters:
    ///   - key: the checkpoint key; a fresh one in memory by default (tests).
    ///   - checkpointDirectory: where checkpoint files go; none by default.
    public init(
        key: KeySource = .key(AuditSigningKey.generate()), checkpointDirectory: String? = nil,
        checkpointEntries: Int = 1_000, checkpointInterval: Duration = .seconds(60),
        flushInterval: Duration = .milliseconds(100), maxPending: Int = 200_000
    ) {
        self.key = key
        self.checkpointDirectory = checkpointDirectory
        self.checkpointEntries = checkpointEntries
        self.checkpointInterval = checkpointInterval
        self.flushInterval = flushInterval
        self.maxPending = maxPending
    }

    /// Reads `SECUREPUSH_AUDIT_KEY_FILE`, `SECUREPUSH_AUDIT_CHECKPOINT_DIR`, `SECUREPUSH_AUDIT_CHECKPOINT_ENTRIES` and
    /// `SECUREPUSH_AUDIT_CHECKPOINT_SECONDS`. In production the key file and the directory must be set: a key
    /// generated beside the data, or checkpoints kept beside the database, would not stop whoever can edit it.
    public init(environment: ServiceEnvironment) throws {
        let dataDirectory = URL(fileURLWithPath: environment.dataDirectory)
        var keyFile = environment.string("SECUREPUSH_AUDIT_KEY_FILE")
        let directory = environment.string("SECUREPUSH_AUDIT_CHECKPOINT_DIR")
        var moduleKey: KeySource?
        if let value = environment.string("SECUREPUSH_AUDIT_KEY") {
            guard keyFile == nil else {
                throw ConfigurationError("SECUREPUSH_AUDIT_KEY and SECUREPUSH_AUDIT_KEY_FILE are both set: set one")
            }
            if PKCS11URI.isURI(value) {
                moduleKey = .module(
                    try HardwareModuleConfiguration.uri(value, variable: "SECUREPUSH_AUDIT_KEY"),
                    HardwareModuleConfiguration(environment: environment))
            } else {
                keyFile = value
            }
        }
        if environment.isProduction {
            guard keyFile != nil || moduleKey != nil else {
                throw ConfigurationError(
                    "SECUREPUSH_AUDIT_KEY_FILE (or SECUREPUSH_AUDIT_KEY, a PEM file or a pkcs11: URI) must be set when "
                        + "SECUREPUSH_ENV=production: it signs the audit "
                        + "trail's checkpoints. Create one with `securepush audit keygen --key-file FILE` and keep it "
                        + "(and its public half, for `securepush audit verify`) away from the database")
            }
            guard directory != nil else {
                throw ConfigurationError(
                    "SECUREPUSH_AUDIT_CHECKPOINT_DIR must be set when SECUREPUSH_ENV=production: signed checkpoints "
                        + "are written there, outside the database, so that truncating the trail is detected")
            }
        }
        self.init(
            key: moduleKey ?? keyFile.map { .file($0) }
                ?? .generatedFile(dataDirectory.appendingPathComponent(AuditSigningKey.generatedFileName).path),
            checkpointDirectory: directory ?? dataDirectory.appendingPathComponent("audit-checkpoints").path,
            checkpointEntries: try environment.int(SettingCatalog.auditCheckpointEntries),
            checkpointInterval: try environment.seconds(SettingCatalog.auditCheckpointSeconds))
        let retention = try environment.int(SettingCatalog.retainAudit)
        self.retention = retention == 0 ? nil : .seconds(retention)
    }

    /// The signing key: a file is read now (throwing `ConfigurationError` naming it), the development default is
    /// created first when missing.
    public func loadKey(logger: Logger) throws -> AuditSigningKey {
        switch key {
        case .key(let key): return key
        case .file(let path): return try AuditSigningKey.load(path: path)
        case .module(let uri, let module):
            let key = try module.signingKey(uri, variable: "SECUREPUSH_AUDIT_KEY")
            do {
                return try AuditSigningKey(module: key)
            } catch {
                throw ConfigurationError("SECUREPUSH_AUDIT_KEY: the key's public half is not a P-256 point")
            }
        case .generatedFile(let path):
            let (key, created) = try AuditSigningKey.loadOrCreate(path: path)
            if created {
                logger.notice(
                    "audit.key.generated", metadata: ["audit.key_file": "\(path)", "audit.key_id": "\(key.keyID)"])
            }
            return key
        }
    }
}
