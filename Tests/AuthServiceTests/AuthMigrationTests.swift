import AuthService
import Foundation
import GRDB
import PostgresNIO
import ServiceCore
import TestSupport
import Testing

/// `v4 times in milliseconds`: rows that `v1`–`v3` stored as dates (GRDB's text on SQLite, `TIMESTAMPTZ` on
/// PostgreSQL) read back with the same instants afterwards.
@Suite("auth's migration of times to milliseconds")
struct AuthMigrationTests {
    // Binary fractions of a second, so that each backend's old form holds them exactly.
    static let created = Date(timeIntervalSince1970: 1_800_000_000.25)
    static let updated = Date(timeIntervalSince1970: 1_800_000_100.5)
    static let revoked = Date(timeIntervalSince1970: 1_800_000_200.125)
    static let expires = Date(timeIntervalSince1970: 1_800_086_400.875)

    /// A value as the repositories before `v4` bound it.
    enum OldValue: Sendable {
        case text(String)
        case time(Date)
        case null
    }

    /// One row in every table, NULL times included.
    static let oldRows: [(String, [OldValue])] = [
        (
            "INSERT INTO users (id, username, password_hash, created_at) VALUES (?, ?, ?, ?)",
            [.text("u1"), .text("ada"), .text("hash"), .time(created)]
        ),
        (
            "INSERT INTO clients (id, secret_hash, scopes, created_at, updated_at) VALUES (?, ?, ?, ?, ?)",
            [.text("billing"), .text("secret-hash"), .text("push:send"), .time(created), .time(updated)]
        ),
        (
            "INSERT INTO token_families (id, user_id, created_at, revoked_at) VALUES (?, ?, ?, ?)",
            [.text("f1"), .text("u1"), .time(created), .null]
        ),
        (
            "INSERT INTO token_families (id, user_id, created_at, revoked_at) VALUES (?, ?, ?, ?)",
            [.text("f2"), .text("u1"), .time(created), .time(revoked)]
        ),
        (
            "INSERT INTO refresh_tokens (hash, family_id, user_id, created_at, expires_at, used_at) VALUES (?, ?, ?, ?, ?, ?)",
            [.text("live"), .text("f1"), .text("u1"), .time(created), .time(expires), .null]
        ),
        (
            "INSERT INTO refresh_tokens (hash, family_id, user_id, created_at, expires_at, used_at) VALUES (?, ?, ?, ?, ?, ?)",
            [.text("spent"), .text("f1"), .text("u1"), .time(created), .time(expires), .time(updated)]
        ),
        (
            "INSERT INTO signing_keys (kid, private_key_pem, x, y, created_at, retired_at) VALUES (?, ?, ?, ?, ?, ?)",
            [.text("k1"), .null, .text("x1"), .text("y1"), .time(created), .time(updated)]
        ),
        (
            "INSERT INTO signing_keys (kid, private_key_pem, x, y, created_at, retired_at) VALUES (?, ?, ?, ?, ?, ?)",
            [.text("k2"), .text("pem"), .text("x2"), .text("y2"), .time(updated), .null]
        ),
    ]

    /// Every time column after the migration, and the instant each must hold.
    static let expected: [(String, [[Int64?]])] = [
        ("SELECT created_at FROM users", [[ms(created)]]),
        ("SELECT created_at, updated_at FROM clients", [[ms(created), ms(updated)]]),
        (
            "SELECT created_at, revoked_at FROM token_families ORDER BY id",
            [[ms(created), nil], [ms(created), ms(revoked)]]
        ),
        (
            "SELECT created_at, expires_at, used_at FROM refresh_tokens ORDER BY hash",
            [[ms(created), ms(expires), nil], [ms(created), ms(expires), ms(updated)]]
        ),
        (
            "SELECT created_at, retired_at FROM signing_keys ORDER BY kid",
            [[ms(created), ms(updated)], [ms(updated), nil]]
        ),
    ]

    static func ms(_ date: Date) -> Int64 { date.millisecondsSince1970 }

    @Test("on SQLite, dates GRDB stored before v4 are the same instants in milliseconds after it")
    func sqlite() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("auth.sqlite")
        do {
            let old = try SQLiteDatabase.open(path: path, migrator: Array(AuthMigrations.all.prefix(3)).sqliteMigrator)
            try await old.write { db in
                for (sql, values) in Self.oldRows {
                    try db.execute(
                        sql: sql,
                        arguments: StatementArguments(
                            values.map { value -> (any DatabaseValueConvertible)? in
                                switch value {
                                case .text(let text): text
                                case .time(let date): date
                                case .null: nil
                                }
                            }))
                }
            }
        }
        let database = try ServiceDatabase.sqlite(path: path, migrations: AuthMigrations.all)
        try await Self.expectSameInstants(database.sql)
    }

    @Test(
        "on PostgreSQL, TIMESTAMPTZ values stored before v4 are the same instants in milliseconds after it",
        .enabled(if: TestPostgres.isConfigured, Comment(rawValue: TestPostgres.skipNotice)))
    func postgres() async throws {
        let url = try TestPostgres.isolatedURL()
        try await TestPostgres.withDatabase(
            serviceName: "auth", migrations: Array(AuthMigrations.all.prefix(3)).postgres, url: url, dropSchema: false
        ) { old in
            try await old.withClient { client in
                for (sql, values) in Self.oldRows {
                    var binds = PostgresBindings()
                    for value in values {
                        switch value {
                        case .text(let text): binds.append(text)
                        case .time(let date): binds.append(date)
                        case .null: binds.appendNull()
                        }
                    }
                    try await client.query(
                        PostgresQuery(unsafeSQL: SQLDialect.postgresql.placeholders(in: sql), binds: binds))
                }
                try await client.query(
                    "INSERT INTO attempt_counters (counter_key, count, expires_at) VALUES ('k', 3, \(Self.expires))")
            }
        }
        try await TestPostgres.withDatabase(serviceName: "auth", migrations: AuthMigrations.all.postgres, url: url) {
            let database = PostgresSQLDatabase($0)
            try await Self.expectSameInstants(database)
            let counter = try await database.read("SELECT expires_at FROM attempt_counters", [])
            #expect(try counter.map { try $0.decode(0, as: Int64.self) } == [Self.ms(Self.expires)])
        }
    }

    /// Every time column holds the old instant as an integer, and the repository reads them as before.
    static func expectSameInstants(_ database: any SQLDatabase) async throws {
        for (sql, rows) in expected {
            let found = try await database.read(sql, []).map { row in
                try row.values.indices.map { try row.decode($0, as: Int64?.self) }
            }
            #expect(found == rows, "\(sql)")
        }
        let repository = SQLAuthRepository(database: database)
        #expect(try await repository.user(named: "ada")?.createdAt == created)
        #expect(try await repository.client(id: "billing")?.createdAt == created)
        #expect(try await repository.signingKeys().map(\.kid) == ["k2", "k1"])
        #expect(try await repository.revokedFamilies(since: revoked) == ["f2"])
        #expect(try await repository.revokedFamilies(since: revoked.addingTimeInterval(0.001)) == [])
        let beforeExpiry = expires.addingTimeInterval(-0.001)
        #expect(
            try await repository.rotateRefreshToken(
                hash: "live", successorHash: "next", successorExpiresAt: expires, at: beforeExpiry)
                == .rotated(userID: "u1", familyID: "f1", signedInAt: Self.created))
        #expect(
            try await repository.rotateRefreshToken(
                hash: "spent", successorHash: "again", successorExpiresAt: expires, at: beforeExpiry)
                == .reused(familyID: "f1"))
    }
}
