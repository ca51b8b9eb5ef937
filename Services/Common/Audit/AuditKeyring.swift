import Crypto
import Foundation

/// Where an audit trail gets the keys it pseudonymises people's identifiers with: auth's own tables in auth
/// (`SQLAuditKeyring`), `auth.auditKeys` elsewhere (``RemoteAuditKeyring``), both behind ``CachedAuditKeyring``.
public protocol AuditKeyring: Sendable {
    /// The keys of those of `userIDs` that have an account; unknown and erased users are missing from the answer.
    func userKeys(_ userIDs: Set<String>) async throws -> [String: SymmetricKey]

    /// The address key of `day` (``AuditDay``), the same in every service.
    func addressKey(day: String) async throws -> SymmetricKey
}

/// The UTC day an address key belongs to, `yyyy-MM-dd`.
public enum AuditDay {
    /// The day of `date`.
    public static func of(_ date: Date) -> String {
        let days = Int64((date.timeIntervalSince1970 / 86_400).rounded(.down))
        let civil = civilDate(daysSinceEpoch: days)
        return String(format: "%04d-%02d-%02d", civil.year, civil.month, civil.day)
    }

    /// Howard Hinnant's `civil_from_days`: no calendar or formatter object per call.
    private static func civilDate(daysSinceEpoch: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = daysSinceEpoch + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthPrime = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthPrime + 2) / 5 + 1
        let month = monthPrime < 10 ? monthPrime + 3 : monthPrime - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
