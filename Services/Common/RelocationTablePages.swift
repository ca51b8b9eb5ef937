#if canImport(Glibc)
    import Foundation
    import Glibc

    /// The pages of the executable's dynamic relocation table (`DT_RELA`, `.rela.dyn`): ~3.8 MB in a service, read in
    /// full by the dynamic loader before `main` applies the relocations, and never read again.
    ///
    /// ``release()`` gives them back (`madvise(MADV_DONTNEED)`). They lie in the read-only segment of a private file
    /// mapping and were never written, so should anything read them again it gets the same bytes from the file; only
    /// whole pages inside the table and inside a segment that is not writable are released.
    public enum RelocationTablePages {
        /// Releases the table's resident pages; returns how many bytes it released (0 when it found no table, or one
        /// smaller than a page, or the system refused).
        @discardableResult
        public static func release() -> Int {
            guard let table = locate() else { return 0 }
            let page = Int(sysconf(Int32(_SC_PAGESIZE)))
            let start = (table.lowerBound + page - 1) / page * page
            let end = table.upperBound / page * page
            guard end > start, let pointer = UnsafeMutableRawPointer(bitPattern: start) else { return 0 }
            return madvise(pointer, end - start, MADV_DONTNEED) == 0 ? end - start : 0
        }

        /// The table's address range in this process, read from the executable's own program headers and dynamic
        /// section (both mapped at its base); `nil` unless it lies wholly in a loaded segment that is not writable.
        public static func locate() -> Range<Int>? {
            guard let base = executableBase(),
                let header = UnsafeRawPointer(bitPattern: base)?.assumingMemoryBound(to: Elf64_Ehdr.self)
            else { return nil }
            // The ELF magic, 64-bit: the mapping at offset 0 is the executable's header.
            guard header.pointee.e_ident.0 == 0x7f, header.pointee.e_ident.4 == UInt8(ELFCLASS64) else { return nil }
            let headers = UnsafeBufferPointer(
                start: UnsafeRawPointer(bitPattern: base + Int(header.pointee.e_phoff))?
                    .assumingMemoryBound(to: Elf64_Phdr.self),
                count: Int(header.pointee.e_phnum))
            guard let dynamic = headers.first(where: { $0.p_type == PT_DYNAMIC }),
                var entry = UnsafeRawPointer(bitPattern: base + Int(dynamic.p_vaddr))?
                    .assumingMemoryBound(to: Elf64_Dyn.self)
            else { return nil }
            var address = 0
            var size = 0
            while entry.pointee.d_tag != Int64(DT_NULL) {
                switch entry.pointee.d_tag {
                case Int64(DT_RELA): address = Int(entry.pointee.d_un.d_ptr)
                case Int64(DT_RELASZ): size = Int(entry.pointee.d_un.d_val)
                default: break
                }
                entry += 1
            }
            guard address > 0, size > 0 else { return nil }
            // glibc rewrites some of the main program's dynamic entries to run-time addresses while loading it.
            if address < base { address += base }
            let table = address..<(address + size)
            let readOnly = headers.contains { segment in
                guard segment.p_type == PT_LOAD, segment.p_flags & UInt32(PF_W) == 0 else { return false }
                let start = base + Int(segment.p_vaddr)
                return start <= table.lowerBound && table.upperBound <= start + Int(segment.p_filesz)
            }
            return readOnly ? table : nil
        }

        /// Where the executable is mapped: the start of its mapping at file offset 0 in `/proc/self/maps`.
        private static func executableBase() -> Int? {
            guard let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"),
                let maps = try? String(contentsOfFile: "/proc/self/maps", encoding: .utf8)
            else { return nil }
            for line in maps.split(separator: "\n") {
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                guard fields.count >= 6, fields[2] == "00000000", fields[5...].joined(separator: " ") == executable,
                    let start = fields[0].split(separator: "-").first
                else { continue }
                return Int(start, radix: 16)
            }
            return nil
        }
    }
#endif
