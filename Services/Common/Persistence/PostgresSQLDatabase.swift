import Foundation
import PostgresNIO

/// ``SQLDatabase`` on PostgreSQL through postgres-nio: statements get numbered placeholders, transactions are
/// `PostgresClient.withTransaction`, and ``exclusively(_:_:)`` takes a transaction-scoped advisory lock.
public struct PostgresSQLDatabase: SQLDatabase {
    /// The pool and its migrations.
    public let database: PostgresServiceDatabase

    public init(_ database: PostgresServiceDatabase) {
        self.database = database
    }

    public var dialect: SQLDialect { .postgresql }

    public func read(_ sql: String, _ binds: [any SQLBindable]) async throws -> [SQLRow] {
        let query = try Self.query(sql, binds)
        let logger = database.logger
        return try await database.withConnection { connection in
            try await Self.rows(try await connection.query(query, logger: logger))
        }
    }

    public func write(_ sql: String, _ binds: [any SQLBindable]) async throws -> [SQLRow] {
        try await read(sql, binds)
    }

    public func execute(_ sql: String, _ binds: [any SQLBindable]) async throws -> Int {
        try Self.count(try await read(Self.counting(sql), binds))
    }

    public func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLTransaction) async throws -> T)
        async throws -> T
    {
        let logger = database.logger
        return try await database.transaction { connection in
            try await body(Transaction(connection: connection, logger: logger))
        }
    }

    /// Nothing at once: dead tuples and WAL segments are reclaimed by VACUUM and checkpoints (docs/security.md).
    public func purgeErasedBytes() async throws {}

    public func exclusively<T: Sendable>(
        _ name: String, _ body: @escaping @Sendable (any SQLTransaction) async throws -> T
    ) async throws -> T? {
        let logger = database.logger
        return try await database.exclusively(name) { connection in
            try await body(Transaction(connection: connection, logger: logger))
        }
    }

    /// The statements of one `withTransaction`.
    struct Transaction: SQLTransaction {
        let connection: PostgresConnection
        let logger: Logger
        var dialect: SQLDialect { .postgresql }

        func query(_ sql: String, _ binds: [any SQLBindable]) async throws -> [SQLRow] {
            try await PostgresSQLDatabase.rows(
                try await connection.query(try PostgresSQLDatabase.query(sql, binds), logger: logger))
        }

        func execute(_ sql: String, _ binds: [any SQLBindable]) async throws -> Int {
            try PostgresSQLDatabase.count(try await query(PostgresSQLDatabase.counting(sql), binds))
        }
    }

    /// postgres-nio does not report a statement's row count: count what a `RETURNING` clause gives, on the server.
    static func counting(_ sql: String) -> String {
        "WITH changed AS (\(sql) RETURNING 1) SELECT count(*) FROM changed"
    }

    static func count(_ rows: [SQLRow]) throws -> Int {
        try rows.first?.decode(0, as: Int.self) ?? 0
    }

    static func query(_ sql: String, _ binds: [any SQLBindable]) throws -> PostgresQuery {
        var bindings = PostgresBindings(capacity: binds.count)
        for bind in binds {
            switch bind.sqlValue {
            case .null: bindings.appendNull()
            case .integer(let value): bindings.append(value)
            case .text(let value): bindings.append(value)
            case .blob(let value): try bindings.append(value)
            }
        }
        return PostgresQuery(unsafeSQL: SQLDialect.postgresql.placeholders(in: sql), binds: bindings)
    }

    static func rows(_ sequence: PostgresRowSequence) async throws -> [SQLRow] {
        var rows: [SQLRow] = []
        for try await row in sequence {
            rows.append(SQLRow(try row.map(Self.value(_:))))
        }
        return rows
    }

    static func value(_ cell: PostgresCell) throws -> SQLValue {
        guard cell.bytes != nil else { return .null }
        switch cell.dataType {
        case .int2, .int4, .int8: return .integer(try cell.decode(Int64.self))
        case .bool: return .integer(try cell.decode(Bool.self) ? 1 : 0)
        case .bytea: return .blob(try cell.decode(Data.self))
        default: return .text(try cell.decode(String.self))
        }
    }
}
