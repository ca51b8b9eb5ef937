import Foundation

extension Date {
    /// Whole milliseconds since 1970: the precision the database keeps.
    var millisecondsSince1970: Int64 {
        Int64((timeIntervalSince1970 * 1000).rounded(.down))
    }

    init(millisecondsSince1970 milliseconds: Int64) {
        self.init(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    /// This date cut to the database's precision, so what is returned equals what is stored.
    var truncatedToMilliseconds: Date {
        Date(millisecondsSince1970: millisecondsSince1970)
    }

    /// This date moved by a `Duration`.
    func adding(_ duration: Duration) -> Date {
        let (seconds, attoseconds) = duration.components
        return addingTimeInterval(Double(seconds) + Double(attoseconds) / 1e18)
    }
}
