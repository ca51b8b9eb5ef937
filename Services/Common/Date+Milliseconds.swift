import Foundation

extension Date {
    /// Milliseconds since 1970: the precision the databases keep.
    ///
    /// Rounded to the nearest millisecond, not down: a date made from a millisecond count can come back a hair
    /// below it in floating point, and must still map to the same count, so stored values read back unchanged.
    public var millisecondsSince1970: Int64 {
        Int64((timeIntervalSince1970 * 1000).rounded())
    }

    /// The date `milliseconds` after 1970 (what the databases store).
    public init(millisecondsSince1970 milliseconds: Int64) {
        self.init(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    /// This date at the databases' precision, so what is returned equals what is stored.
    public var truncatedToMilliseconds: Date {
        Date(millisecondsSince1970: millisecondsSince1970)
    }
}
