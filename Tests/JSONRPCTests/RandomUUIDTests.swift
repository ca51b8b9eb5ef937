import Foundation
import JSONRPC
import Testing

@Suite("UUID.random(): version-4 UUIDs without opening /dev/urandom")
struct RandomUUIDTests {
    @Test("each is a version-4, RFC 9562 variant UUID in the usual text form, and they do not repeat")
    func versionVariantUniqueness() throws {
        let uuids = (0..<10_000).map { _ in UUID.random() }
        #expect(Set(uuids).count == uuids.count)
        for uuid in uuids.prefix(100) {
            let text = uuid.uuidString.lowercased()
            #expect(UUID(uuidString: text) == uuid)
            let characters = Array(text)
            #expect(characters.count == 36)
            #expect(characters[14] == "4", "version nibble of \(text)")
            #expect("89ab".contains(characters[19]), "variant nibble of \(text)")
        }
        // Every other bit is random: over 10,000 UUIDs each of the 122 random bits is set about half the time.
        var setCounts = [Int](repeating: 0, count: 128)
        for uuid in uuids {
            withUnsafeBytes(of: uuid.uuid) { bytes in
                for bit in 0..<128 where bytes[bit / 8] & (0x80 >> (bit % 8)) != 0 { setCounts[bit] += 1 }
            }
        }
        let fixed: Set<Int> = [48, 49, 50, 51, 64, 65]
        for bit in 0..<128 where !fixed.contains(bit) {
            #expect((4_000...6_000).contains(setCounts[bit]), "bit \(bit) set \(setCounts[bit]) times in 10,000")
        }
    }
}
