import Foundation
import ServiceCore
import Testing

#if canImport(Glibc)
    import Glibc

    @Suite("The executable's relocation table, once the process runs")
    struct RelocationTablePagesTests {
        static let page = Int(sysconf(Int32(_SC_PAGESIZE)))

        @Test("its pages are given back, and reading them again gives the same bytes")
        func released() throws {
            let table = try #require(RelocationTablePages.locate())
            let probe = (table.lowerBound + Self.page - 1) / Self.page * Self.page
            try #require(probe + Self.page <= table.upperBound, "the test executable's table spans a whole page")
            let pointer = try #require(UnsafeRawPointer(bitPattern: probe))
            let before = Array(UnsafeRawBufferPointer(start: pointer, count: 64))
            #expect(try Self.isResident(probe))

            #expect(RelocationTablePages.release() >= Self.page)
            #expect(try !Self.isResident(probe))
            // The mapping is the file's: the same bytes come back from it.
            #expect(Array(UnsafeRawBufferPointer(start: pointer, count: 64)) == before)
        }

        /// Whether the page holding `address` is mapped in this process now (`/proc/self/pagemap`, bit 63).
        static func isResident(_ address: Int) throws -> Bool {
            let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/self/pagemap"))
            defer { try? handle.close() }
            try handle.seek(toOffset: UInt64(address / page) * 8)
            let entry = try #require(try handle.read(upToCount: 8))
            try #require(entry.count == 8)
            return entry.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) } >> 63 == 1
        }
    }
#endif
