/// What really differs between the SQL of SQLite and of PostgreSQL. Statements are written once with `?`
/// placeholders and the syntax both accept (`ON CONFLICT … DO UPDATE`/`DO NOTHING`, `RETURNING`); the dialect
/// supplies the rest.
public struct SQLDialect: Sendable, Hashable {
    /// `sqlite` or `postgresql`.
    public let name: String
    /// The column type for binary data: `BLOB` or `BYTEA`.
    public let binaryType: String
    /// The column type for 64-bit integers (times in milliseconds since 1970 included): `INTEGER` or `BIGINT`.
    public let integerType: String
    /// Appended to a `SELECT` that claims rows for this transaction while other replicas skip them:
    /// `FOR UPDATE SKIP LOCKED` on PostgreSQL; empty on SQLite, whose single writer already excludes the others.
    public let claimRows: String
    /// Whether parameters are numbered (`$1`, `$2`, …) rather than `?`.
    let numbersPlaceholders: Bool

    /// SQLite through GRDB.
    public static let sqlite = SQLDialect(
        name: "sqlite", binaryType: "BLOB", integerType: "INTEGER", claimRows: "", numbersPlaceholders: false)
    /// PostgreSQL through postgres-nio.
    public static let postgresql = SQLDialect(
        name: "postgresql", binaryType: "BYTEA", integerType: "BIGINT", claimRows: "FOR UPDATE SKIP LOCKED",
        numbersPlaceholders: true)

    /// `sql` with its `?` placeholders in this dialect's form (a `?` inside a quoted string or identifier is left alone).
    public func placeholders(in sql: String) -> String {
        guard numbersPlaceholders else { return sql }
        var result = ""
        result.reserveCapacity(sql.utf8.count + 8)
        var number = 0
        var quote: Character?
        for character in sql {
            if let open = quote {
                if character == open { quote = nil }
                result.append(character)
            } else if character == "'" || character == "\"" {
                quote = character
                result.append(character)
            } else if character == "?" {
                number += 1
                result += "$\(number)"
            } else {
                result.append(character)
            }
        }
        return result
    }
}
