import ArgumentParser
import Foundation
import ServiceCore
import StoreService

/// `securepush store-keys`: manage notification-store's at-rest encryption keys.
struct StoreKeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store-keys",
        abstract: "Manage the keys notification-store encrypts payloads at rest with.",
        subcommands: [Rotate.self]
    )

    /// `securepush store-keys rotate`: a new key, and every server-readable payload re-encrypted under it.
    struct Rotate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a new store key and re-encrypt every server-readable payload under it.",
            discussion: """
                Appends a new key to the key file (creating the file when missing), then re-encrypts, in batches, \
                every payload stored in plaintext or under an older key, while the store runs: replicas re-read the \
                file when they meet a key they lack. Copies sealed to a device are never touched. Works on the store \
                database directly (SECUREPUSH_DATABASE_URL for PostgreSQL, else SECUREPUSH_DATA_DIR or --data-dir). \
                Restart the store replicas afterwards so new payloads use the new key, run again with \
                --reencrypt-only, and only then remove older keys from the file (docs/operations.md).
                """
        )

        @Option(help: "the key file (env SECUREPUSH_STORE_KEY_FILE; default <data-dir>/store-keys)")
        var keyFile: String?
        @Option(help: "data directory holding store.sqlite (env SECUREPUSH_DATA_DIR; default ./.securepush)")
        var dataDir: String?
        @Flag(help: "add no key: re-encrypt under the newest key already in the file")
        var reencryptOnly = false
        @Option(help: "payloads re-encrypted per transaction")
        var batchSize = 500

        func validate() throws {
            guard (1...10_000).contains(batchSize) else {
                throw ValidationError("--batch-size must be between 1 and 10000")
            }
        }

        func run() async throws {
            var environment = ServiceEnvironment()
            if let dataDir { environment.values["SECUREPUSH_DATA_DIR"] = dataDir }
            if let keyFile { environment.values["SECUREPUSH_STORE_KEY_FILE"] = keyFile }
            let configuration: StoreConfiguration
            do {
                configuration = try StoreConfiguration(environment: environment)
            } catch let error as ConfigurationError {
                throw CLIError(
                    "refused configuration: \(error.description)",
                    hint: "fix the SECUREPUSH_* variable it names, or pass --key-file")
            }
            let file = EncryptionKeyFile(
                path: configuration.storeKeys.path ?? "", purpose: .store, wrapping: configuration.storeKeyWrapping)
            let (ring, appended) = try prepareKeys(in: file)
            let sealer = AESGCMPayloadSealer(ring: ring)
            let newest = sealer.ring.current.id
            let report: PayloadReencryption.Report
            do {
                let database = try ServiceDatabase.open(
                    configuration, schema: StoreMigrations.schema, logger: cliLogger())
                report = try await database.whileRunning { database in
                    try await PayloadReencryption(database: database, sealer: sealer, batchSize: batchSize).run()
                }
            } catch {
                throw CLIError(
                    "cannot re-encrypt the store's payloads: \(error)",
                    hint: "check SECUREPUSH_DATABASE_URL or --data-dir; rows already re-encrypted stay readable, "
                        + "run the command again with --reencrypt-only", detail: String(reflecting: error))
            }
            await CLIAudit.record(
                "store.keys.rotated",
                [
                    "keyId": .text(newest), "keyAdded": .flag(!reencryptOnly),
                    "reencrypted": .integer(Int64(report.reencrypted)),
                    "failures": .integer(Int64(report.failures.count)),
                ], in: .store, dataDir: dataDir)
            emit("re-encrypted \(report.reencrypted) payloads under key '\(newest)'")
            if report.skipped > 0 { emit("left \(report.skipped) copies sealed to devices as they are") }
            if let first = report.failures.first {
                throw CLIError(
                    "\(report.failures.count) payloads could not be opened, and were left as they are: \(first)",
                    hint: "put the store keys they name back into \(file.path), then run "
                        + "`securepush store-keys rotate --reencrypt-only`")
            }
            guard appended else { return }
            emit(
                "next: restart every notification-store replica (new payloads then use '\(newest)'), run "
                    + "`securepush store-keys rotate --reencrypt-only`, then remove older keys from \(file.path)")
        }

        /// Adds the new key to `file` (creating it when missing) unless `--reencrypt-only`; returns the file's keys and
        /// whether a key was added beside older ones.
        private func prepareKeys(in file: EncryptionKeyFile) throws -> (ring: EncryptionKeyRing, appended: Bool) {
            let hint = "fix the line it names (key bytes are never printed), or restore the file from its backup"
            do {
                if !FileManager.default.fileExists(atPath: file.path) {
                    guard !reencryptOnly else {
                        throw CLIError(
                            "there is no store key file at \(file.path)",
                            hint: "run `securepush store-keys rotate` without --reencrypt-only to create one")
                    }
                    let key = EncryptionKey.generate(now: Date())
                    _ = try file.create(with: key)
                    emit("created \(file.path) with key '\(key.id)'")
                    return (try file.load(), false)
                }
                guard !reencryptOnly else { return (try file.load(), false) }
                _ = try file.load()
                let key = EncryptionKey.generate(now: Date())
                try file.append(key)
                emit("added key '\(key.id)' to \(file.path): it encrypts from now on, older keys still decrypt")
                return (try file.load(), true)
            } catch let error as ConfigurationError {
                throw CLIError(error.description, hint: hint)
            }
        }
    }
}
