import Foundation
import Logging
import ServiceLifecycle

/// How every SecurePush process runs: a logger from `SECUREPUSH_LOG_LEVEL`, its lifecycle services until SIGTERM or
/// SIGINT, then a graceful shutdown in reverse order that ends within the shutdown timeout whatever clients do.
///
/// A configuration that must not start ends the process with exit code 1 and one line on standard error naming the
/// variable (production refusals are also logged as the security event `config.production.refused`).
public enum ServiceRunner {
    /// The process's logger: `SECUREPUSH_LOG_LEVEL` (`trace` … `critical`), `defaultLevel` when unset, writing in
    /// `SECUREPUSH_LOG_FORMAT` (`text` or `json`, see ``LogFormat``), with `metadataProvider`'s metadata on every line
    /// (``ServiceTracing/metadataProvider``: `trace_id` and `span_id` while a span is active).
    public static func makeLogger(
        label: String, environment: ServiceEnvironment, defaultLevel: Logger.Level = .info,
        metadataProvider: Logger.MetadataProvider? = nil
    ) throws -> Logger {
        var logger = try LogFormat(environment: environment).logger(label: label, metadataProvider: metadataProvider)
        guard let name = environment.string("SECUREPUSH_LOG_LEVEL") else {
            logger.logLevel = defaultLevel
            return logger
        }
        guard let level = Logger.Level(rawValue: name.lowercased()) else {
            let levels = Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")
            throw ConfigurationError("SECUREPUSH_LOG_LEVEL must be one of \(levels), got '\(name)'")
        }
        logger.logLevel = level
        return logger
    }

    /// Runs a service process to its end and exits: 0 after a graceful shutdown, 1 when it could not start or failed.
    /// - Parameters:
    ///   - name: the executable's name, first on every line it prints (`auth-service`).
    ///   - label: the logger's label (`securepush.auth`).
    ///   - service: the service's name (`auth`), OpenTelemetry's `service.name` unless `OTEL_SERVICE_NAME` is set.
    ///   - build: plans the process from `environment` (the service's `…Plan.make`), with its logger and tracing
    ///     (``ServiceTracing``: off unless the OpenTelemetry variables ask for it); throws `ConfigurationError` to
    ///     refuse to start.
    ///   - trail: the service's schema and SQLite file: a configuration refused is also recorded in its audit trail
    ///     (`config.refused`, in a chain of its own), when the database and the audit settings allow it.
    public static func main(
        name: String,
        label: String,
        service: String,
        environment: ServiceEnvironment = ServiceEnvironment(),
        trail: (schema: ServiceSchema, sqliteFile: String)? = nil,
        build: (ServiceEnvironment, Logger, ServiceTracing) async throws -> Plan
    ) async -> Never {
        #if canImport(Glibc)
            // Before anything runs: a crash must not keep the ports for minutes (SWIFT_BACKTRACE is read at start).
            CrashBacktrace.configure()
            // The executable and the libraries the dynamic loader mapped: the files whose read-only pages go back.
            let pages = MappedFilePages()
        #endif
        let logger: Logger
        let tracing: ServiceTracing
        do {
            let diagnostics = try makeLogger(label: "\(label).otel", environment: environment)
            tracing = try ServiceTracing(serviceName: service, environment: environment, logger: diagnostics)
            logger = try makeLogger(label: label, environment: environment, metadataProvider: tracing.metadataProvider)
        } catch {
            refuse(name: name, error, logger: Logger(label: label), environment: environment)
        }
        #if canImport(Glibc)
            // The dynamic loader is done: the relocation table's ~4 MB, and the code it ran, go back
            // (docs/benchmarks.md).
            let released = pages.release()
            logger.debug("process.pages.released", metadata: ["bytes": "\(released)", "after": "loading"])
            let tuned = MallocTuning.apply(environment: environment.values)
            logger.debug("process.malloc.tuned", metadata: ["applied": "\(tuned)"])
        #endif
        do {
            try SettingCatalog.checkDeclared(environment, logger: logger)
            var plan = try await build(environment, logger, tracing)
            #if canImport(Glibc) && !DEBUG
                // Release builds only: a debug build's unoptimised executable (~175 MB) faults back tens of MB after
                // this, and `swift test` runs dozens of them beside timing-sensitive tests on two cores.
                // Start-up is over a few seconds after the application is built: it has bound its port, reached its
                // peers (the store fetches auth's keys) and looked up its types' conformances. The code only that ran
                // need not stay mapped; what serving runs faults back in from the page cache (docs/benchmarks.md).
                plan = plan.whenApplicationBuilt {
                    Task {
                        try? await Task.sleep(for: MappedFilePages.startUpSettling)
                        let released = pages.release()
                        logger.debug(
                            "process.pages.released", metadata: ["bytes": "\(released)", "after": "start-up"])
                    }
                }
            #endif
            // First to start, last to stop: spans of the whole shutdown are still exported.
            plan.services.insert(contentsOf: tracing.services, at: 0)
            try await run(plan, logger: logger)
            exit(0)
        } catch {
            if let trail, let refusal = error as? ConfigurationError {
                await recordRefusal(refusal, trail: trail, environment: environment, logger: logger)
            }
            refuse(name: name, error, logger: logger, environment: environment)
        }
    }

    /// Records `refusal` as `config.refused` in the service's audit trail, best effort and within 5 seconds: a
    /// refusal of the database's or the audit trail's own settings cannot be recorded, and must not hold the exit.
    /// Only into a trail that exists: a refused start creates no database file and generates no key.
    static func recordRefusal(
        _ refusal: ConfigurationError, trail: (schema: ServiceSchema, sqliteFile: String),
        environment: ServiceEnvironment, logger: Logger
    ) async {
        guard let audit = try? AuditConfiguration(environment: environment) else { return }
        let postgres: PostgresURL?
        do {
            postgres = try environment.postgresURL()
        } catch {
            return
        }
        if case .generatedFile(let path) = audit.key, !FileManager.default.fileExists(atPath: path) { return }
        let sqlitePath = URL(fileURLWithPath: environment.dataDirectory).appendingPathComponent(trail.sqliteFile).path
        if postgres == nil, !FileManager.default.fileExists(atPath: sqlitePath) { return }
        let recorded = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                do {
                    try await AuditTrail.recordAlone(
                        "config.refused",
                        ["reason": .text(refusal.description), "production": .flag(environment.isProduction)],
                        schema: trail.schema, sqliteFile: trail.sqliteFile, environment: environment, logger: logger)
                    return true
                } catch {
                    logger.debug("audit.refusal.unrecorded", metadata: ["error": "\(error)"])
                    return false
                }
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(5))
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        if !recorded { logger.debug("audit.refusal.unrecorded", metadata: ["reason": "not recorded within 5 s"]) }
    }

    /// Runs `plan`'s services until SIGTERM or SIGINT, then shuts them down within `plan.shutdownTimeout`: the service
    /// group cancels what has not stopped by then, and a watchdog ends the process if even that does not return.
    public static func run(_ plan: Plan, logger: Logger) async throws {
        var configuration = ServiceGroupConfiguration(
            services: [ShutdownWatchdog(limit: plan.shutdownTimeout, logger: logger)] + plan.services,
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger
        )
        configuration.maximumGracefulShutdownDuration = plan.shutdownTimeout
        configuration.maximumCancellationDuration = .seconds(1)
        try await ServiceGroup(configuration: configuration).run()
    }

    private static func refuse(name: String, _ error: any Error, logger: Logger, environment: ServiceEnvironment)
        -> Never
    {
        if let error = error as? ConfigurationError {
            if environment.isProduction {
                logger.security(
                    SecurityEvent("config.production.refused"), metadata: ["error": "\(error.description)"])
            }
            FileHandle.standardError.write(Data("\(name): configuration error: \(error.description)\n".utf8))
        } else {
            FileHandle.standardError.write(Data("\(name): \(error)\n".utf8))
        }
        exit(1)
    }
}

/// Ends the process `limit` after graceful shutdown began, in case a service or a client connection still holds it:
/// a rolling restart must never end in SIGKILL. Runs on a dispatch timer, so a blocked task pool cannot delay it.
struct ShutdownWatchdog: Service {
    let limit: Duration
    let logger: Logger

    func run() async throws {
        try? await gracefulShutdown()  // returns when shutdown begins (or the group is cancelled)
        let delay = limit.timeInterval
        let logger = logger
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) {
            logger.error("service.shutdown.forced", metadata: ["service.shutdown_timeout": "\(delay)"])
            exit(1)
        }
    }
}
