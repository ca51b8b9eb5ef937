import Foundation

/// A value bound to a statement's parameter or read from a result column: the four storage classes both backends
/// share (booleans travel as integers 0/1, times as milliseconds since 1970).
public enum SQLValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case text(String)
    case blob(Data)
}

/// A Swift value that binds to a statement parameter.
public protocol SQLBindable: Sendable {
    /// The value as bound.
    var sqlValue: SQLValue { get }
}

/// A Swift value that a result column decodes into.
public protocol SQLDecodable {
    /// Decodes `value`, or `nil` when it is of another kind.
    init?(sqlValue value: SQLValue)
}

extension Int64: SQLBindable, SQLDecodable {
    public var sqlValue: SQLValue { .integer(self) }
    public init?(sqlValue value: SQLValue) {
        guard case .integer(let integer) = value else { return nil }
        self = integer
    }
}

extension Int: SQLBindable, SQLDecodable {
    public var sqlValue: SQLValue { .integer(Int64(self)) }
    public init?(sqlValue value: SQLValue) {
        guard case .integer(let integer) = value, let exact = Int(exactly: integer) else { return nil }
        self = exact
    }
}

extension Bool: SQLBindable, SQLDecodable {
    public var sqlValue: SQLValue { .integer(self ? 1 : 0) }
    public init?(sqlValue value: SQLValue) {
        guard case .integer(let integer) = value else { return nil }
        self = integer != 0
    }
}

extension String: SQLBindable, SQLDecodable {
    public var sqlValue: SQLValue { .text(self) }
    public init?(sqlValue value: SQLValue) {
        guard case .text(let text) = value else { return nil }
        self = text
    }
}

extension Data: SQLBindable, SQLDecodable {
    public var sqlValue: SQLValue { .blob(self) }
    public init?(sqlValue value: SQLValue) {
        guard case .blob(let data) = value else { return nil }
        self = data
    }
}

extension Optional: SQLBindable where Wrapped: SQLBindable {
    public var sqlValue: SQLValue { self?.sqlValue ?? .null }
}

extension Optional: SQLDecodable where Wrapped: SQLDecodable {
    @inlinable
    public init?(sqlValue value: SQLValue) {
        if case .null = value {
            self = .none
        } else {
            guard let wrapped = Wrapped(sqlValue: value) else { return nil }
            self = .some(wrapped)
        }
    }
}

extension SQLValue: SQLBindable {
    public var sqlValue: SQLValue { self }
}
