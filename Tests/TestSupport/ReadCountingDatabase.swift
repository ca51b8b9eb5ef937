import ServiceCore
import Synchronization

/// Wraps a database and counts its async reads (``SQLDatabase/read(_:_:)``) and its writes (statements and
/// transactions); it does not offer reads on the calling thread, as PostgreSQL does not.
/// ``ImmediateReadCountingDatabase`` does, as SQLite does. Everything goes through to the wrapped database.
public class ReadCountingDatabase: SQLDatabase, @unchecked Sendable {  // Immutable but for the Mutex.
    /// What was read, by path.
    public struct Counts: Sendable, Equatable {
        /// Async reads (a hop to a reader's queue on SQLite, a round trip on PostgreSQL).
        public var async = 0
        /// Reads on the calling thread.
        public var immediate = 0

        public init(async: Int = 0, immediate: Int = 0) {
            self.async = async
            self.immediate = immediate
        }
    }

    let base: any SQLDatabase
    let counts = Mutex(Counts())
    private let writeCount = Mutex(0)

    /// - Parameter base: the database the calls go to.
    public init(_ base: any SQLDatabase) {
        self.base = base
    }

    /// The reads so far.
    public var reads: Counts { counts.withLock { $0 } }

    /// The writes so far: each `write`, `execute`, `transaction` and `exclusively` call counts once.
    public var writes: Int { writeCount.withLock { $0 } }

    public var dialect: SQLDialect { base.dialect }

    public func read(_ sql: String, _ binds: [any SQLBindable]) async throws -> [SQLRow] {
        counts.withLock { $0.async += 1 }
        return try await base.read(sql, binds)
    }

    public func write(_ sql: String, _ binds: [any SQLBindable]) async throws -> [SQLRow] {
        writeCount.withLock { $0 += 1 }
        return try await base.write(sql, binds)
    }

    public func execute(_ sql: String, _ binds: [any SQLBindable]) async throws -> Int {
        writeCount.withLock { $0 += 1 }
        return try await base.execute(sql, binds)
    }

    public func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLTransaction) async throws -> T)
        async throws -> T
    {
        writeCount.withLock { $0 += 1 }
        return try await base.transaction(body)
    }

    public func purgeErasedBytes() async throws {
        try await base.purgeErasedBytes()
    }

    public func exclusively<T: Sendable>(
        _ name: String, _ body: @escaping @Sendable (any SQLTransaction) async throws -> T
    ) async throws -> T? {
        writeCount.withLock { $0 += 1 }
        return try await base.exclusively(name, body)
    }
}

/// A ``ReadCountingDatabase`` that also counts reads on the calling thread; wraps a database that offers them.
public final class ImmediateReadCountingDatabase: ReadCountingDatabase, SQLImmediateReading, @unchecked Sendable {
    private let reader: any SQLImmediateReading

    /// - Parameter base: a SQLite database (``SQLImmediateReading``).
    public init(_ base: any SQLDatabase & SQLImmediateReading) {
        reader = base
        super.init(base)
    }

    public func readImmediately(_ sql: String, _ binds: [any SQLBindable]) throws -> [SQLRow]? {
        counts.withLock { $0.immediate += 1 }
        return try reader.readImmediately(sql, binds)
    }
}
