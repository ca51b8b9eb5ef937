import Foundation

/// `securepush audit export --format jsonl`: every entry recorded since a time, of every chain of the given services,
/// merged by time; one JSON object per line for a SIEM: `{"time", "service", "hash", "entry"}`, `entry` being the
/// entry's body exactly as its hash covers it.
public struct AuditExport: Sendable {
    let repositories: [SQLAuditRepository]

    public init(repositories: [SQLAuditRepository]) {
        self.repositories = repositories
    }

    /// Hands each line to `emit`, oldest first; returns how many.
    @discardableResult
    public func write(since: Date, _ emit: (String) throws -> Void) async throws -> Int {
        let sinceMilliseconds = since.millisecondsSince1970
        var cursors = repositories.map { Cursor(repository: $0, since: sinceMilliseconds) }
        for index in cursors.indices { try await cursors[index].fill() }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var count = 0
        while let index = cursors.indices.filter({ cursors[$0].head != nil })
            .min(by: { cursors[$0].head!.recordedAt < cursors[$1].head!.recordedAt })
        {
            let entry = cursors[index].head!
            let time = formatter.string(from: Date(millisecondsSince1970: entry.recordedAt))
            try emit(
                #"{"time":"\#(time)","service":"\#(cursors[index].repository.service)","hash":"\#(entry.hash)","entry":"#
                    + entry.body + "}")
            count += 1
            try await cursors[index].advance()
        }
        return count
    }

    /// One service's entries, a page at a time.
    private struct Cursor {
        let repository: SQLAuditRepository
        let since: Int64
        var page: [AuditEntry] = []
        var position = 0
        var exhausted = false

        init(repository: SQLAuditRepository, since: Int64) {
            self.repository = repository
            self.since = since
        }

        var head: AuditEntry? { position < page.count ? page[position] : nil }

        mutating func fill() async throws {
            guard !exhausted else { return }
            let last = page.last.map { ($0.recordedAt, $0.chain, $0.sequence) }
            page = try await repository.entries(since: since, after: last)
            position = 0
            if page.isEmpty { exhausted = true }
        }

        mutating func advance() async throws {
            position += 1
            if position == page.count { try await fill() }
        }
    }
}
