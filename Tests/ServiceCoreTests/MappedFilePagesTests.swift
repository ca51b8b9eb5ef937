import Foundation
import ServiceCore
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc

    @Suite("Read-only file mappings given back after start-up")
    struct MappedFilePagesTests {
        static let page = Int(sysconf(Int32(_SC_PAGESIZE)))

        @Test("only private, read-only mappings of a file with no anonymous, swapped or locked byte are releasable")
        func releasableMappings() {
            let smaps = """
                5600000000-5600001000 r--p 00000000 fe:00 11 /opt/app/store-service
                Size:                  4 kB
                Rss:                   4 kB
                Anonymous:             0 kB
                Swap:                  0 kB
                Locked:                0 kB
                THPeligible:           0
                ProtectionKey:         0
                VmFlags: rd mr mw me
                5600001000-5600009000 r-xp 00001000 fe:00 11 /opt/app/store-service
                Rss:                  32 kB
                Anonymous:             0 kB
                Swap:                  0 kB
                Locked:                0 kB
                VmFlags: rd ex mr mw me
                5600009000-560000b000 r--p 00009000 fe:00 11 /opt/app/store-service
                Rss:                   8 kB
                Anonymous:             8 kB
                Swap:                  0 kB
                Locked:                0 kB
                560000b000-560000d000 r--p 0000b000 fe:00 11 /opt/app/store-service
                Rss:                   4 kB
                Anonymous:             0 kB
                Swap:                  4 kB
                Locked:                0 kB
                560000d000-560000e000 rw-p 0000d000 fe:00 11 /opt/app/store-service
                Rss:                   4 kB
                Anonymous:             0 kB
                Swap:                  0 kB
                Locked:                0 kB
                7f0000000000-7f0000002000 r--s 00000000 fe:00 12 /data/store.sqlite
                Rss:                   8 kB
                Anonymous:             0 kB
                Swap:                  0 kB
                Locked:                0 kB
                7f0000002000-7f0000003000 r--p 00000000 fe:00 13 /usr/lib/locked.so
                Rss:                   4 kB
                Anonymous:             0 kB
                Swap:                  0 kB
                Locked:                4 kB
                7f0000003000-7f0000005000 r-xp 00000000 00:00 0
                Rss:                   8 kB
                Anonymous:             8 kB
                Swap:                  0 kB
                Locked:                0 kB
                7f0000005000-7f0000006000 r-xp 00000000 00:00 0                          [vdso]
                Rss:                   4 kB
                Anonymous:             0 kB
                Swap:                  0 kB
                Locked:                0 kB
                7f0000006000-7f0000008000 r--p 00000000 fe:00 14 /srv/my app/lib with spaces.so
                Rss:                   8 kB
                Anonymous:             0 kB
                Swap:                  0 kB
                Locked:                0 kB
                7f0000008000-7f0000009000 r--p 00000000 fe:00 15 /usr/lib/odd.so
                Rss:                   4 kB
                Anonymous:           n/a
                Swap:                  0 kB
                Locked:                0 kB
                7f0000009000-7f000000a000 r--p 00000000 fe:00 16 /usr/lib/no-swap-field.so
                Rss:                   4 kB
                Anonymous:             0 kB
                Locked:                0 kB
                7f000000a000-7f000000c000 r--p 00000000 fe:00 17 /usr/lib/last.so
                Rss:                   8 kB
                Anonymous:             0 kB
                Swap:                  0 kB
                Locked:                0 kB
                ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]
                Rss:                  16 kB
                Anonymous:             0 kB
                Swap:                  0 kB
                Locked:                0 kB
                """
            let mappings = MappedFilePages.releasable(smaps: smaps)
            #expect(
                mappings == [
                    .init(range: 0x56_0000_0000..<0x56_0000_1000, residentBytes: 4096, path: "/opt/app/store-service"),
                    .init(range: 0x56_0000_1000..<0x56_0000_9000, residentBytes: 32768, path: "/opt/app/store-service"),
                    .init(
                        range: 0x7f00_0000_6000..<0x7f00_0000_8000, residentBytes: 8192,
                        path: "/srv/my app/lib with spaces.so"),
                    // The [vsyscall] entry after it, above Int.max, does not parse: its fields count for no mapping.
                    .init(range: 0x7f00_0000_a000..<0x7f00_0000_c000, residentBytes: 8192, path: "/usr/lib/last.so"),
                ])
        }

        @Test("the regions are every mapping of the files with a private executable mapping")
        func codeObjectMappings() {
            let smaps = """
                5600000000-5600001000 r--p 00000000 fe:00 11 /opt/app/store-service
                Rss:                   4 kB
                5600001000-5600009000 r-xp 00001000 fe:00 11 /opt/app/store-service
                Rss:                  32 kB
                7f0000000000-7f0000001000 r-xp 00000000 fe:00 12 /usr/lib/libc.so.6
                7f0000001000-7f0000002000 r--p 00000000 fe:00 13 /usr/lib/locale/C.utf8/LC_CTYPE
                7f0000002000-7f0000003000 r-xs 00000000 fe:00 14 /dev/shm/shared-code
                7f0000003000-7f0000004000 r-xp 00000000 00:00 0                          [vdso]
                """
            #expect(
                MappedFilePages.codeObjectMappings(smaps: smaps) == [
                    .init(range: 0x56_0000_0000..<0x56_0000_1000, residentBytes: 0, path: "/opt/app/store-service"),
                    .init(range: 0x56_0000_1000..<0x56_0000_9000, residentBytes: 0, path: "/opt/app/store-service"),
                    .init(range: 0x7f00_0000_0000..<0x7f00_0000_1000, residentBytes: 0, path: "/usr/lib/libc.so.6"),
                ])
        }

        @Test("this test process's executable and its C library, mapped far apart, are code objects mapped at start")
        func executableIsACodeObject() throws {
            let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
            let objects = MappedFilePages().objects
            #expect(objects.contains(executable))
            // Past the first read of /proc/self/smaps: the whole file is read.
            #expect(objects.contains { $0.hasSuffix("/libc.so.6") }, "\(objects)")
        }

        @Test("a recorded read-only mapping is released, reads the same; a written one, a later one, another file stay")
        func releasesOnlyTheFilesPages() throws {
            let path = try Self.temporaryFile()
            defer { unlink(path) }
            let other = try Self.temporaryFile()
            defer { unlink(other) }
            let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
            let descriptor = open(path, O_RDONLY)
            try #require(descriptor >= 0)
            defer { close(descriptor) }
            let otherDescriptor = open(other, O_RDONLY)
            try #require(otherDescriptor >= 0)
            defer { close(otherDescriptor) }
            let length = 4 * Self.page

            // The file as code and read-only data are mapped: private, read-only.
            let readOnly = try #require(mmap(nil, length, PROT_READ, MAP_PRIVATE, descriptor, 0))
            try #require(readOnly != MAP_FAILED)
            defer { munmap(readOnly, length) }
            // A page written after mapping, then made read-only (as a relocated read-only-after-relocation page is).
            let written = try #require(mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE, descriptor, 0))
            try #require(written != MAP_FAILED)
            defer { munmap(written, length) }
            written.storeBytes(of: 0xAB, toByteOffset: Self.page, as: UInt8.self)
            try #require(mprotect(written, length, PROT_READ) == 0)

            // A file the caller did not name: not released, whatever its mapping.
            let unnamed = try #require(mmap(nil, length, PROT_READ, MAP_PRIVATE, otherDescriptor, 0))
            try #require(unnamed != MAP_FAILED)
            defer { munmap(unnamed, length) }
            #expect(unnamed.load(as: UInt8.self) == bytes[0])

            // The regions recorded before the release: the two mappings of the file so far.
            let regions = [readOnly, written].map {
                MappedFilePages.Mapping(
                    range: Int(bitPattern: $0)..<(Int(bitPattern: $0) + length), residentBytes: 0, path: path)
            }
            // The same file mapped again afterwards, elsewhere: outside the regions, so not released.
            let later = try #require(mmap(nil, length, PROT_READ, MAP_PRIVATE, descriptor, 0))
            try #require(later != MAP_FAILED)
            defer { munmap(later, length) }
            #expect(later.load(as: UInt8.self) == bytes[0])

            let before = Array(UnsafeRawBufferPointer(start: readOnly, count: length))
            #expect(before == bytes)
            #expect(try Self.isResident(readOnly))
            #expect(try Self.isResident(written + Self.page))

            #expect(MappedFilePages(regions: regions).release() >= Self.page)

            #expect(try !Self.isResident(readOnly))
            // The file's bytes come back from the file.
            #expect(Array(UnsafeRawBufferPointer(start: readOnly, count: length)) == bytes)
            // The mapping holding a written page is left whole: the write is still there.
            #expect(try Self.isResident(written + Self.page))
            #expect(written.load(fromByteOffset: Self.page, as: UInt8.self) == 0xAB)
            #expect(written.load(fromByteOffset: 2 * Self.page, as: UInt8.self) == bytes[2 * Self.page])
            #expect(try Self.isResident(unnamed))
            #expect(try Self.isResident(later))
        }

        /// A new file of four pages of known bytes; returns its path.
        static func temporaryFile() throws -> String {
            let path = TemporaryDirectory.processRootURL.appendingPathComponent("mapped-\(UUID()).bin").path
            let bytes = (0..<(4 * page)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            // As /proc/self/smaps names it, should the temporary directory be reached through a symbolic link.
            return URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        }

        /// Whether the page holding `address` is mapped in this process now (`/proc/self/pagemap`, bit 63).
        static func isResident(_ address: UnsafeRawPointer) throws -> Bool {
            let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/self/pagemap"))
            defer { try? handle.close() }
            try handle.seek(toOffset: UInt64(Int(bitPattern: address) / page) * 8)
            let entry = try #require(try handle.read(upToCount: 8))
            try #require(entry.count == 8)
            return entry.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) } >> 63 == 1
        }
    }
#endif
