import Foundation
import StoreService
import Testing

/// Notification ids are checked byte by byte on every fetch; they must accept exactly what Foundation's UUID parser
/// accepts, in the same canonical (lowercase) form.
@Suite("Notification ids")
struct NotificationIDTests {
    /// What the parser it replaced gave.
    static func foundation(_ text: String) -> String? {
        guard text.utf8.count == 36, let uuid = UUID(uuidString: text) else { return nil }
        return uuid.uuidString.lowercased()
    }

    /// Foundation's parser reads each byte pair with `sscanf("%2hhx")`, which also takes a leading space or sign
    /// (`" d22…"` became `3221…`: another id); those are refused here, every other answer is the same.
    @Test("the same answer as Foundation's UUID parser, valid or not, except what sscanf misreads")
    func matchesFoundation() {
        let id = NotificationID.make()
        let mixed = String(id.prefix(9)) + id.dropFirst(9).uppercased()
        let braced = "{" + String(id.dropFirst().dropLast()) + "}"
        let shifted = String(id.dropFirst()) + "-"
        var inputs: [String] = [id, id.uppercased(), mixed, String(id.dropLast()), id + "0", braced, shifted]
        inputs += [id.replacingOccurrences(of: "-", with: "_"), "g" + id.dropFirst(), " " + id.dropFirst()]
        inputs += ["é" + id.dropFirst(2), "", "' OR 1=1 --", String(repeating: "a", count: 36)]
        inputs += ["00000000-0000-0000-0000-000000000000", "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF"]
        inputs += ["0000000-00000-0000-0000-000000000000"]
        for position in [8, 13, 18, 23, 0, 35] {
            var bytes = Array(id.utf8)
            bytes[position] = bytes[position] == UInt8(ascii: "-") ? UInt8(ascii: "a") : UInt8(ascii: "-")
            inputs.append(String(decoding: bytes, as: UTF8.self))
        }
        for _ in 0..<200 { inputs.append(UUID().uuidString) }
        for input in inputs {
            let expected = Self.foundation(input).flatMap { $0 == input.lowercased() ? $0 : nil }
            #expect(NotificationID.normalized(input) == expected, "\(input)")
        }
        #expect(NotificationID.normalized(id.uppercased()) == id)
        #expect(NotificationID.normalized(" " + id.dropFirst()) == nil)
        #expect(NotificationID.normalized("-" + id.dropFirst()) == nil)
    }
}
