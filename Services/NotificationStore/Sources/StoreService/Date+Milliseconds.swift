import Foundation

extension Date {
    /// Milliseconds since 1970: the precision the database keeps.
    ///
    /// Rounded to the nearest millisecond, not down: a date made from a millisecond count can come back a hair
    /// below it in floating point, and must still map to the same count.
    var millisecondsSince1970: Int64 {
        Int64((timeIntervalSince1970 * 1000).rounded())
    }

    init(millisecondsSince1970 milliseconds: Int64) {
        self.init(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    /// This date at the database's precision, so what is returned equals what is stored.
    var truncatedToMilliseconds: Date {
        Date(millisecondsSince1970: millisecondsSince1970)
    }
}
