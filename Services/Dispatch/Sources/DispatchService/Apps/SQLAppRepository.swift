import Foundation
import ServiceCore
import SharedModels

/// The `app` table on SQLite or PostgreSQL, each operation written once.
public struct SQLAppRepository: Sendable {
    let database: any SQLDatabase

    /// - Parameter database: a database migrated with ``DispatchMigrations/all``.
    public init(database: any SQLDatabase) {
        self.database = database
    }

    /// The counters of `sendsPerMinute` (key `<app id>`, one-minute windows).
    public static let sendCountersTable = "app_send_counters"

    static let columns = "id, display_name, credentials, limits, created_at, updated_at, revision, allowed_origins"

    /// Adds `app`; `false` (nothing written) when an app with its id exists (of two concurrent creates, one wins).
    /// Every replica hears of a change when its transaction commits (``changed(_:_:)``).
    public func create(_ app: AppRecord) async throws -> Bool {
        try await database.transaction { db in
            let inserted = try await db.execute(
                """
                INSERT INTO app (
                    id, display_name, credentials, limits, created_at, updated_at, revision, allowed_origins)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT DO NOTHING
                """,
                [
                    app.id, app.displayName, app.sealedCredentials, try Self.json(app.limits),
                    app.createdAt.millisecondsSince1970, app.updatedAt.millisecondsSince1970, app.revision,
                    try Self.json(app.allowedOrigins),
                ])
            if inserted > 0 { try await Self.changed(app.id, db) }
            return inserted > 0
        }
    }

    /// Tells every replica (on PostgreSQL, when the transaction commits) that app `id` changed: they read the apps
    /// again at once instead of at their next `SECUREPUSH_APPS_REFRESH_INTERVAL`.
    static func changed(_ id: String, _ db: any SQLTransaction) async throws {
        try await db.notify(DispatchMigrations.wakeChannel, "a:" + id)
    }

    /// Every app, by id.
    public func list() async throws -> [AppRecord] {
        try await database.read("SELECT \(Self.columns) FROM app ORDER BY id", []).map(Self.app(from:))
    }

    /// Every app's id and version: what a replica compares with what it serves, reading no credentials.
    public func versions() async throws -> [String: AppRecord.Version] {
        var result: [String: AppRecord.Version] = [:]
        for row in try await database.read("SELECT id, revision, created_at FROM app", []) {
            result[try row.decode(0)] = AppRecord.Version(revision: try row.decode(1), createdAt: try row.decode(2))
        }
        return result
    }

    /// The app `id`, if there is one.
    public func app(id: String) async throws -> AppRecord? {
        try await database.read("SELECT \(Self.columns) FROM app WHERE id = ?", [id]).first.map(Self.app(from:))
    }

    /// Deletes app `id`: its devices and pending devices go (the store is told to revoke what was sealed to them),
    /// and their undelivered jobs end `failed`. `false` when there is no such app.
    public func delete(id: String, now: Date) async throws -> Bool {
        let nowMS = now.millisecondsSince1970
        return try await database.transaction { db in
            guard try await db.execute("DELETE FROM app WHERE id = ?", [id]) > 0 else { return false }
            let devices = try await db.query("SELECT id FROM device WHERE app_id = ?", [id]).map {
                try $0.decode(0, as: String.self)
            }
            for device in devices {
                try await SQLDeviceRepository.failUnfinishedJobs(of: device, reason: "app deleted", nowMS, db)
                try await DeviceRevocationOutbox.enqueue(device, now: now, db)
            }
            _ = try await db.execute("DELETE FROM device WHERE app_id = ?", [id])
            _ = try await db.execute("DELETE FROM device_verification WHERE app_id = ?", [id])
            try await Self.changed(id, db)
            return true
        }
    }

    /// Replaces app `id`'s display name, credentials and limit, raising its revision, when it is still at
    /// `app.revision` (read, changed, written back: a change made meanwhile is never overwritten); `false` when there
    /// is no such app or it changed meanwhile.
    public func update(_ app: AppRecord) async throws -> Bool {
        try await database.transaction { db in
            let updated = try await db.execute(
                """
                UPDATE app SET display_name = ?, credentials = ?, limits = ?, allowed_origins = ?, updated_at = ?,
                    revision = revision + 1
                WHERE id = ? AND revision = ?
                """,
                [
                    app.displayName, app.sealedCredentials, try Self.json(app.limits),
                    try Self.json(app.allowedOrigins),
                    app.updatedAt.millisecondsSince1970, app.id, app.revision,
                ])
            if updated > 0 { try await Self.changed(app.id, db) }
            return updated > 0
        }
    }

    /// A column's JSON text (limits: `{}` for none; origins: `[]`).
    static func json(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    static func app(from row: SQLRow) throws -> AppRecord {
        AppRecord(
            id: try row.decode(0), displayName: try row.decode(1), sealedCredentials: try row.decode(2),
            limits: try JSONDecoder().decode(Apps.Limits.self, from: Data(try row.decode(3, as: String.self).utf8)),
            createdAt: Date(millisecondsSince1970: try row.decode(4)),
            updatedAt: Date(millisecondsSince1970: try row.decode(5)), revision: try row.decode(6),
            allowedOrigins: try JSONDecoder().decode([String].self, from: Data(try row.decode(7, as: String.self).utf8))
        )
    }
}
