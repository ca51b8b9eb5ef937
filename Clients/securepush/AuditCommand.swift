import ArgumentParser
import AuthService
import Crypto
import DispatchService
import Foundation
import Logging
import PKCS11
import ServiceCore
import StoreService

/// `securepush audit`: check and export the services' audit trails, and make the key that signs their checkpoints.
struct AuditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "Verify and export the tamper-evident audit trails (docs/compliance.md).",
        subcommands: [Verify.self, Export.self, Keygen.self]
    )

    /// Where the trails are: the same settings the services read.
    struct TrailOptions: ParsableArguments {
        @Option(
            help: ArgumentHelp(
                "data directory holding auth.sqlite, store.sqlite and dispatch.sqlite, as `securepush up --data-dir` "
                    + "(env SECUREPUSH_DATA_DIR; default ./.securepush); with SECUREPUSH_DATABASE_URL the PostgreSQL "
                    + "schemas are read instead"))
        var dataDir: String?

        @Option(
            help: "the services to read: auth, notification-store, push-dispatch (repeat; default all three)")
        var service: [String] = []

        /// The environment the services would read, with `--data-dir` on top.
        var environment: ServiceEnvironment {
            var environment = ServiceEnvironment()
            if let dataDir { environment.values["SECUREPUSH_DATA_DIR"] = dataDir }
            return environment
        }

        /// Each service's schema and SQLite file.
        static let trails = CLIAudit.Trail.allCases

        func validate() throws {
            let known = Self.trails.map(\.schema.service)
            for name in service where !known.contains(name) {
                throw ValidationError("--service must be one of \(known.joined(separator: ", ")), got '\(name)'")
            }
        }

        /// Runs `body` with each chosen service's trail; a database that cannot be opened exits 2.
        func withTrails<T: Sendable>(_ body: ([SQLAuditRepository]) async throws -> T) async throws -> T {
            let environment = environment
            let chosen = Self.trails.filter { service.isEmpty || service.contains($0.schema.service) }
            let postgres: PostgresURL?
            do {
                postgres = try environment.postgresURL()
            } catch let error as ConfigurationError {
                throw CLIError("refused configuration: \(error.description)", exitCode: .unreachable)
            }
            var databases: [ServiceDatabase] = []
            for trail in chosen {
                let path = URL(fileURLWithPath: environment.dataDirectory).appendingPathComponent(trail.file).path
                if postgres == nil, !FileManager.default.fileExists(atPath: path) {
                    throw CLIError(
                        "cannot read \(trail.schema.service)'s audit trail: \(path) does not exist",
                        hint: "pass the data directory the services use (--data-dir), or set SECUREPUSH_DATABASE_URL",
                        exitCode: .unreachable)
                }
                let configuration = ServiceDatabaseLocation(postgresURL: postgres, databasePath: path)
                do {
                    databases.append(
                        try ServiceDatabase.open(
                            configuration, schema: trail.schema, logger: Logger(label: "securepush.audit")))
                } catch {
                    throw CLIError(
                        "cannot open \(trail.schema.service)'s database: \(error)", exitCode: .unreachable)
                }
            }
            return try await Self.running(databases) {
                try await body(
                    zip(chosen, databases).map { SQLAuditRepository(database: $1.sql, schema: $0.schema) })
            }
        }

        /// Runs `body` while every PostgreSQL pool among `databases` runs.
        private static func running<T: Sendable>(_ databases: [ServiceDatabase], _ body: () async throws -> T)
            async throws -> T
        {
            guard let first = databases.first else { return try await body() }
            return try await first.whileRunning { _ in
                try await running(Array(databases.dropFirst()), body)
            }
        }
    }

    /// `securepush audit verify`.
    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check every audit chain and its signed checkpoints.",
            discussion: """
                Recomputes each entry's hash, checks it is chained to the one before, that no sequence number is \
                missing, that every checkpoint (in the database and in SECUREPUSH_AUDIT_CHECKPOINT_DIR) is signed \
                by the audit key and names an entry with its hash, and that no chain ends before its last \
                checkpoint. Names the service, chain, sequence number and fault of the first bad entry. Exits 0 \
                when every trail verifies, 1 when one was altered, 2 when one cannot be read.
                """
        )

        @OptionGroup var trails: TrailOptions
        @Option(
            help: ArgumentHelp(
                "the audit key, or its public half, PEM (env SECUREPUSH_AUDIT_KEY or SECUREPUSH_AUDIT_KEY_FILE; "
                    + "default <data-dir>/audit-signing-key.pem); repeat it for a trail signed under several keys "
                    + "over time (a key replaced, or moved into a PKCS#11 module)"))
        var publicKey: [String] = []
        @Option(
            help: ArgumentHelp(
                "the checkpoint directory (env SECUREPUSH_AUDIT_CHECKPOINT_DIR; default <data-dir>/audit-checkpoints)"))
        var checkpointDir: String?
        @Flag(help: "print the result as JSON")
        var json = false

        func run() async throws {
            let environment = trails.environment
            let dataDirectory = URL(fileURLWithPath: environment.dataDirectory)
            let keys: [P256.Signing.PublicKey]
            if publicKey.isEmpty, let uri = environment.string("SECUREPUSH_AUDIT_KEY"), PKCS11URI.isURI(uri) {
                // The key is in a module: its public half is read there (the private half never leaves it).
                do {
                    let module = HardwareModuleConfiguration(environment: environment)
                    keys = [
                        try AuditSigningKey(
                            module: try module.signingKey(
                                try HardwareModuleConfiguration.uri(uri, variable: "SECUREPUSH_AUDIT_KEY"),
                                variable: "SECUREPUSH_AUDIT_KEY")
                        ).publicKey
                    ]
                } catch {
                    throw CLIError(
                        "cannot read the audit key's public half from the module: \(error)",
                        hint: "pass --public-key (`securepush hsm public-key --key URI` prints it)",
                        exitCode: .unreachable)
                }
            } else {
                let paths =
                    publicKey.isEmpty
                    ? [
                        environment.string("SECUREPUSH_AUDIT_KEY") ?? environment.string("SECUREPUSH_AUDIT_KEY_FILE")
                            ?? dataDirectory.appendingPathComponent(AuditSigningKey.generatedFileName).path
                    ] : publicKey
                do {
                    keys = try paths.map { path throws(ConfigurationError) in try AuditSigningKey.publicKey(path: path)
                    }
                } catch {
                    throw CLIError(
                        "cannot read the audit key: \(error.description)",
                        hint: "pass --public-key (the public half of SECUREPUSH_AUDIT_KEY_FILE)", exitCode: .unreachable
                    )
                }
            }
            let directory =
                checkpointDir ?? environment.string("SECUREPUSH_AUDIT_CHECKPOINT_DIR")
                ?? dataDirectory.appendingPathComponent("audit-checkpoints").path
            let reports = try await trails.withTrails { repositories in
                var reports: [AuditVerification] = []
                for repository in repositories {
                    do {
                        reports.append(
                            try await AuditVerifier(
                                repository: repository, files: AuditCheckpointFiles(directory: directory),
                                publicKeys: keys
                            ).verify())
                    } catch {
                        throw CLIError(
                            "cannot read \(repository.service)'s audit trail: \(error)", exitCode: .unreachable)
                    }
                }
                return reports
            }
            for report in reports { print(json ? Self.json(report) : Self.text(report)) }
            if reports.contains(where: { $0.fault != nil }) { throw ExitCode(CLIExitCode.refused.rawValue) }
        }

        static func text(_ report: AuditVerification) -> String {
            if let fault = report.fault { return "ALTERED \(fault)" }
            return "ok \(report.service): \(report.chains) chains, \(report.entries) entries, "
                + "\(report.checkpoints) checkpoints, \(report.unsignedEntries) entries after the last checkpoint"
        }

        static func json(_ report: AuditVerification) -> String {
            var object: [String: Any] = [
                "service": report.service, "chains": report.chains, "entries": report.entries,
                "checkpoints": report.checkpoints, "unsignedEntries": report.unsignedEntries,
                "ok": report.fault == nil,
            ]
            if let fault = report.fault {
                object["fault"] = ["chain": fault.chain, "sequence": fault.sequence, "reason": fault.reason]
            }
            let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
            return String(decoding: data, as: UTF8.self)
        }
    }

    /// `securepush audit export`.
    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write the audit entries recorded since a time, merged by time, one JSON object per line.",
            discussion: """
                Each line is {"time", "service", "hash", "entry"}, `entry` being the entry exactly as its hash \
                covers it: people appear only as pseudonyms (u:… under their own key, d:… under a day's key).
                """
        )

        @OptionGroup var trails: TrailOptions
        @Option(help: "the earliest entry: an ISO 8601 time, or an age such as 90s, 30m, 2h, 1d")
        var since: String
        @Option(help: "the output format (jsonl)")
        var format = "jsonl"

        func validate() throws {
            guard format == "jsonl" else { throw ValidationError("--format must be jsonl") }
            guard SinceArgument.time(since, now: Date()) != nil else {
                throw ValidationError("--since must be an ISO 8601 time or an age such as 90s, 30m, 2h, 1d")
            }
        }

        func run() async throws {
            let start = SinceArgument.time(since, now: Date())!
            _ = try await trails.withTrails { repositories in
                try await AuditExport(repositories: repositories).write(since: start) { line in
                    FileHandle.standardOutput.write(Data((line + "\n").utf8))
                }
            }
        }
    }

    /// `securepush audit keygen`.
    struct Keygen: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make an audit checkpoint signing key (ECDSA P-256, PEM, 0600) and print its public half.")

        @Option(help: "where to write the private key (SECUREPUSH_AUDIT_KEY_FILE); an existing file is kept")
        var keyFile: String

        func run() async throws {
            let (key, created) = try AuditSigningKey.loadOrCreate(path: keyFile)
            FileHandle.standardError.write(
                Data(
                    ((created ? "wrote \(keyFile)" : "kept the existing key in \(keyFile)")
                        + " (key id \(key.keyID)); its public half, for `securepush audit verify --public-key`:\n")
                        .utf8))
            print(key.publicKey.pemRepresentation)
        }
    }
}
