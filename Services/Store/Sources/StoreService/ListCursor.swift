import Foundation
import ServiceCore
import SharedModels

/// A keyset position in a listing: the (createdAt, id) of the last item shown.
///
/// Sent to clients as opaque base64url so the format can change; ties on `createdAt` are broken by `id`,
/// so paging stays stable when several notifications share a millisecond.
public struct ListCursor: Sendable, Hashable {
    /// `createdAt` of the last item shown, in milliseconds since 1970.
    public var createdAtMilliseconds: Int64
    /// The id of the last item shown.
    public var id: String

    public init(createdAtMilliseconds: Int64, id: String) {
        self.createdAtMilliseconds = createdAtMilliseconds
        self.id = id
    }

    /// The position right after `item`.
    public init(after item: NotificationMetadata) {
        self.init(createdAtMilliseconds: item.createdAt.millisecondsSince1970, id: item.id)
    }

    private static let version = "v1"

    /// The opaque form handed to clients as `nextCursor`.
    public var encoded: String {
        Data("\(Self.version):\(createdAtMilliseconds):\(id)".utf8).base64URLEncodedString()
    }

    /// Reads a cursor a client sent back; `nil` when it is not one this service made.
    public init?(encoded: String) {
        guard encoded.count <= 128,
            let data = Data(base64URLEncoded: encoded),
            let text = String(data: data, encoding: .utf8)
        else { return nil }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == Self.version,
            let milliseconds = Int64(parts[1]), milliseconds >= 0,
            let id = NotificationID.normalized(String(parts[2]))
        else { return nil }
        self.init(createdAtMilliseconds: milliseconds, id: id)
    }
}
