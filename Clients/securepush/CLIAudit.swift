import AuthService
import DispatchService
import Foundation
import ServiceCore
import StoreService

/// What an administrative command did, recorded in the audit trail of the service whose database it changed
/// (`clients create`, `users create`, `store-keys rotate`, `apps …`): a chain of the command's own, committed and
/// signed (database and checkpoint directory) before the command returns, like a service process's.
enum CLIAudit {
    /// The service whose trail an entry goes to.
    enum Trail: CaseIterable {
        case auth, store, dispatch

        var schema: ServiceSchema {
            switch self {
            case .auth: AuthMigrations.schema
            case .store: StoreMigrations.schema
            case .dispatch: DispatchMigrations.schema
            }
        }

        var file: String {
            switch self {
            case .auth: "auth.sqlite"
            case .store: "store.sqlite"
            case .dispatch: "dispatch.sqlite"
            }
        }
    }

    /// Records `type` with `fields` (and `by: cli`) in `trail`'s audit trail, the database found as the services
    /// find it (`SECUREPUSH_DATABASE_URL`, else `--data-dir` / `SECUREPUSH_DATA_DIR`). The command's work is done
    /// already: a failure is reported on standard error and does not undo it.
    static func record(_ type: String, _ fields: AuditFields, in trail: Trail, dataDir: String?) async {
        var environment = ServiceEnvironment()
        if let dataDir { environment.values["SECUREPUSH_DATA_DIR"] = dataDir }
        do {
            try await AuditTrail.recordAlone(
                type, (["by": .text("cli")] as AuditFields).merging(fields), schema: trail.schema,
                sqliteFile: trail.file, environment: environment, logger: cliLogger(),
                keyring: { database -> any AuditKeyring in
                    trail == .auth ? SQLAuditKeyring(database: database) : EphemeralAuditKeyring()
                })
        } catch {
            FileHandle.standardError.write(
                Data("warning: done, but not recorded in the audit trail (\(type)): \(error)\n".utf8))
        }
    }
}
