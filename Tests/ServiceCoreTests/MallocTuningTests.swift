#if canImport(Glibc)
    import Foundation
    import Glibc
    import ServiceCore
    import Testing

    /// The services set glibc's malloc to keep freed memory instead of giving it back at once (docs/benchmarks.md §2).
    @Suite("malloc tuning of the service processes", .serialized)
    struct MallocTuningTests {
        @Test("an operator's GLIBC_TUNABLES for malloc stand alone; other tunables do not stop ours")
        func operatorWins() {
            #expect(!MallocTuning.apply(environment: ["GLIBC_TUNABLES": "glibc.malloc.trim_threshold=131072"]))
            #expect(MallocTuning.apply(environment: ["GLIBC_TUNABLES": "glibc.rtld.optional_static_tls=2048"]))
        }

        @Test("glibc accepts the settings, and freed memory stays in the process instead of going back at once")
        func freedMemoryStays() throws {
            #expect(MallocTuning.apply(environment: [:]))
            // 48 MB in 16 kB blocks (below the mmap threshold: from a heap), written, then freed. glibc's default
            // trims a heap once 128 kB are free at its top, which would give nearly all of it back; with 64 MB kept,
            // the process keeps it (other tests running beside this one move RSS by far less than the margin).
            let blocks = (0..<3_072).map { _ in malloc(16_384) }
            for block in blocks { block?.initializeMemory(as: UInt8.self, repeating: 1, count: 16_384) }
            let before = try Self.residentBytes()
            for block in blocks { free(block) }
            let after = try Self.residentBytes()
            #expect(after + (24 << 20) >= before, "RSS fell from \(before >> 20) to \(after >> 20) MB")
        }

        /// This process's resident bytes (`/proc/self/statm`, second field, in pages).
        static func residentBytes() throws -> Int {
            let statm = try String(contentsOfFile: "/proc/self/statm", encoding: .utf8)
            let pages = try #require(Int(statm.split(separator: " ")[1]))
            return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
        }
    }
#endif
