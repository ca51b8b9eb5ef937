import Crypto
import Foundation
import Logging
import SharedModels

extension AuditTrail {
    /// Records `type` with `fields` in a chain of its own in the trail of the service whose schema is `schema`,
    /// committed and signed (database and checkpoint directory) before returning: for a short-lived process acting on
    /// a service's database (a CLI command, a service refusing its configuration). The database is the one the
    /// service would open (`SECUREPUSH_DATABASE_URL`, else `sqliteFile` in `SECUREPUSH_DATA_DIR`).
    /// - Parameter keyring: the keys people's identifiers are pseudonymised with, given the database (a process of
    ///   auth's own has auth's); by default a day key of this process's own.
    public static func recordAlone(
        _ type: String, _ fields: AuditFields, schema: ServiceSchema, sqliteFile: String,
        environment: ServiceEnvironment, logger: Logger,
        keyring: @Sendable (any SQLDatabase) -> any AuditKeyring = { _ in EphemeralAuditKeyring() }
    ) async throws {
        let configuration = try AuditConfiguration(environment: environment)
        let database = try ServiceDatabase.open(
            ServiceDatabaseLocation(
                postgresURL: try environment.postgresURL(),
                databasePath: URL(fileURLWithPath: environment.dataDirectory).appendingPathComponent(sqliteFile).path),
            schema: schema, logger: logger)
        try await database.whileRunning { sql in
            let trail = AuditTrail(
                repository: SQLAuditRepository(database: sql, schema: schema), keyring: keyring(sql),
                signingKey: try configuration.loadKey(logger: logger), configuration: configuration, logger: logger)
            trail.record(type, fields)
            try await trail.checkpoint()
        }
    }
}

/// A service database named by `SECUREPUSH_DATABASE_URL` or a SQLite path, for a process that is not the service
/// (`securepush audit`, the CLI's audit entries, a refused start).
public struct ServiceDatabaseLocation: ServiceDatabaseConfiguration {
    public var postgresURL: PostgresURL?
    public var databasePath: String?
    public var sqliteSynchronous: SQLiteSynchronous = .normal

    public init(postgresURL: PostgresURL?, databasePath: String?) {
        self.postgresURL = postgresURL
        self.databasePath = databasePath
    }
}

/// A user id as named where the id itself must not go (erasure journal, the replicas' wake channel):
/// base64url(SHA-256(user id)).
public enum UserDigest {
    public static func of(_ userID: String) -> String {
        Base64URL.encode(SHA256.hash(data: Data(userID.utf8)))
    }
}
