/// One result row, its columns in the order the statement selected them.
public struct SQLRow: Sendable, Hashable {
    /// The column values.
    public let values: [SQLValue]

    public init(_ values: [SQLValue]) {
        self.values = values
    }

    /// Column `index` decoded as `T`; throws ``SQLDecodingError`` when it is missing or of another kind.
    ///
    /// Inlinable so that each caller's module specializes it for its `T` (a generic call instantiated `T?`'s
    /// metadata at run time on every column of every fetch).
    @inlinable
    public func decode<T: SQLDecodable>(_ index: Int, as type: T.Type = T.self) throws -> T {
        guard values.indices.contains(index), let value = T(sqlValue: values[index]) else {
            throw SQLDecodingError(
                column: index, expected: "\(T.self)", found: values.indices.contains(index) ? values[index] : nil)
        }
        return value
    }
}

/// A result column was missing or not of the expected kind: the schema and the code disagree.
public struct SQLDecodingError: Error, CustomStringConvertible {
    /// The column's position.
    public let column: Int
    /// The Swift type asked for.
    public let expected: String
    /// What the column held; `nil` when the row has no such column.
    public let found: SQLValue?

    @usableFromInline
    init(column: Int, expected: String, found: SQLValue?) {
        self.column = column
        self.expected = expected
        self.found = found
    }

    public var description: String {
        "column \(column): expected \(expected), found \(found.map { "\($0)" } ?? "no column")"
    }
}
