/// The fields of an ``AuditEvent``: a few named ``AuditValue``s, kept in name order with each name once — the order
/// an entry's body lists them in.
///
/// Written as a dictionary literal (`["client": .text(id), "address": .address(ip)]`); a name given twice keeps its
/// last value, as assigning through the subscript does. An event has a handful of fields and is built on a request's
/// path (every fetch records one), so they are a short sorted array rather than a hash table: no hashing to build
/// them, and nothing to sort when the entry is written.
public struct AuditFields: Sendable, Equatable, ExpressibleByDictionaryLiteral {
    /// The fields, in name order (`String`'s `<`), each name once.
    public private(set) var sorted: [(name: String, value: AuditValue)] = []

    public init() {}

    public init(dictionaryLiteral elements: (String, AuditValue)...) {
        sorted.reserveCapacity(elements.count)
        for (name, value) in elements { self[name] = value }
    }

    /// The value named `name`; assigning `nil` removes it.
    public subscript(name: String) -> AuditValue? {
        get {
            let index = position(of: name)
            return index < sorted.count && sorted[index].name == name ? sorted[index].value : nil
        }
        set {
            let index = position(of: name)
            let present = index < sorted.count && sorted[index].name == name
            switch (present, newValue) {
            case (true, let value?): sorted[index].value = value
            case (true, nil): sorted.remove(at: index)
            case (false, let value?): sorted.insert((name, value), at: index)
            case (false, nil): break
            }
        }
    }

    /// These fields with `other`'s added; where both name a field, `other`'s value is kept.
    public func merging(_ other: AuditFields) -> AuditFields {
        var merged = self
        for (name, value) in other.sorted { merged[name] = value }
        return merged
    }

    /// The fields of an erasure's entry: `user` (pseudonymised) and, under each table's name, how many of its rows went.
    public static func erasure(of userID: String, removed counts: [String: Int]) -> AuditFields {
        var fields = AuditFields()
        for (table, count) in counts { fields[table] = .integer(Int64(count)) }
        fields["user"] = .user(userID)
        return fields
    }

    /// How many fields there are.
    public var count: Int { sorted.count }

    /// The values, in name order.
    public var values: some Sequence<AuditValue> { sorted.lazy.map(\.value) }

    public static func == (lhs: AuditFields, rhs: AuditFields) -> Bool {
        lhs.sorted.elementsEqual(rhs.sorted) { $0.name == $1.name && $0.value == $1.value }
    }

    /// The first index whose name is not below `name` (a linear scan: events have a handful of fields).
    private func position(of name: String) -> Int {
        var index = 0
        while index < sorted.count, sorted[index].name < name { index += 1 }
        return index
    }
}
