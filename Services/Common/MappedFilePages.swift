#if canImport(Glibc)
    import Foundation
    import Glibc

    /// The pages of the executable's and the shared libraries' read-only mappings (code, read-only data, relocation
    /// tables) that this process has mapped, given back when start-up is over.
    ///
    /// A service maps most of its executable's pages while it starts: the dynamic loader reads the whole relocation
    /// table (~3.8 MB), and migrations, configuration, key loading and TLS set-up run code that never runs again, each
    /// fault mapping the 64 kB around the page it touched (the kernel's fault-around), or the whole read-around window
    /// when the file is not cached. ``release()`` unmaps them (`madvise(MADV_DONTNEED)`); what the service runs
    /// afterwards faults back in from the page cache, so its resident set is what it has run since
    /// (docs/benchmarks.md, issue 33's eleventh round). ``ServiceRunner`` releases them when `main` begins and
    /// ``startUpSettling`` after the application is built.
    ///
    /// Only private mappings of a file that are not writable and hold no anonymous page, resident or swapped out, are
    /// released: every page of such a mapping is the file's page as it is on disk, so reading it again gives the same
    /// bytes. A page that was ever written (a text relocation, a relocated read-only-after-relocation page, a
    /// debugger's breakpoint) is an anonymous copy, and a mapping holding one is left alone, as are locked mappings
    /// and any mapping whose `smaps` entry lacks one of the fields that say so. And only mappings inside the
    /// ``regions`` recorded when `main` began: between reading `/proc/self/smaps` and `madvise`, a mapping another
    /// thread unmapped could be replaced by memory whose contents `MADV_DONTNEED` would lose, but the executable and
    /// the libraries the dynamic loader mapped stay mapped, at the same addresses, for the life of the process.
    ///
    /// A library overwritten in place while the process runs (`cp` over it rather than a new file renamed into
    /// place) was already unsafe, as any page the kernel reclaimed came back from the new bytes; after a release
    /// nearly every page does.
    public struct MappedFilePages: Sendable {
        /// A mapping of a file: its addresses in this process, the file, and its resident bytes (`Rss`) when
        /// `/proc/self/smaps` was read.
        public struct Mapping: Equatable, Sendable {
            /// Its addresses in this process.
            public var range: Range<Int>
            /// Its resident bytes (`Rss`) when `/proc/self/smaps` was read.
            public var residentBytes: Int
            /// The file it maps.
            public var path: String

            public init(range: Range<Int>, residentBytes: Int, path: String) {
                self.range = range
                self.residentBytes = residentBytes
                self.path = path
            }
        }

        /// How long after a service's application is built its start-up is taken to be over, and ``release()`` runs
        /// again: binding, the first calls to its peers and the Swift runtime's first look-ups take well under a
        /// second on the benchmark machine.
        public static let startUpSettling: Duration = .seconds(5)

        /// Where ``release()`` may release: every mapping of the code objects when this was made.
        public let regions: [Mapping]

        /// The mappings, whatever their permissions, of the executable and the shared libraries mapped now (the
        /// files with an executable mapping in `/proc/self/smaps`): made first thing in `main`, those of the files
        /// the dynamic loader mapped, which are never unmapped. Empty when `/proc` is unreadable.
        public init() {
            self.init(regions: Self.codeObjectMappings(smaps: Self.readSmaps() ?? ""))
        }

        /// Releases only within `regions`: mappings the caller keeps mapped while ``release()`` runs.
        public init(regions: [Mapping]) {
            self.regions = regions
        }

        /// The files of ``regions``.
        public var objects: Set<String> { Set(regions.map(\.path)) }

        /// Unmaps the resident pages of every releasable mapping (``releasable(smaps:)`` of `/proc/self/smaps`) that
        /// lies inside one of ``regions``, of the same file; returns the resident bytes it released (0 when `/proc`
        /// is unreadable or the system refused).
        @discardableResult
        public func release() -> Int {
            guard let smaps = Self.readSmaps() else { return 0 }
            var released = 0
            for mapping in Self.releasable(smaps: smaps) where mapping.residentBytes > 0 && isRecorded(mapping) {
                guard let start = UnsafeMutableRawPointer(bitPattern: mapping.range.lowerBound),
                    madvise(start, mapping.range.count, MADV_DONTNEED) == 0
                else { continue }
                released += mapping.residentBytes
            }
            return released
        }

        /// Whether `mapping` lies inside a region of the same file (the kernel may split a region, never widen one).
        private func isRecorded(_ mapping: Mapping) -> Bool {
            regions.contains { region in
                region.path == mapping.path && region.range.lowerBound <= mapping.range.lowerBound
                    && mapping.range.upperBound <= region.range.upperBound
            }
        }

        /// All of `/proc/self/smaps`. Read to its end: the file reports no size, and `String(contentsOfFile:)` returns
        /// only what its first read gets (~4 kB, the first few mappings).
        static func readSmaps() -> String? {
            guard let handle = FileHandle(forReadingAtPath: "/proc/self/smaps") else { return nil }
            defer { try? handle.close() }
            guard let data = try? handle.readToEnd() else { return nil }
            return String(decoding: data, as: UTF8.self)
        }

        /// The fields of a mapping's `smaps` entry that decide whether it may be released; each must be present.
        private static let deciding = ["Rss", "Anonymous", "Swap", "Locked"]

        /// The mappings of `smaps` (the text of a `/proc/<pid>/smaps`) that may be released: private, not writable,
        /// of a file (an absolute path, not `[vdso]` or an anonymous region), with `Anonymous`, `Swap` and `Locked`
        /// all 0 kB. A mapping whose entry lacks one of those or `Rss`, or has one that does not read as kilobytes,
        /// is not releasable.
        public static func releasable(smaps: String) -> [Mapping] {
            var mappings: [Mapping] = []
            var current: (mapping: Mapping, eligible: Bool, seen: Set<Substring>)?
            func finish() {
                if let done = current, done.eligible, done.seen.count == deciding.count {
                    mappings.append(done.mapping)
                }
                current = nil
            }
            for line in smaps.split(separator: "\n", omittingEmptySubsequences: true) {
                if Header.looksLikeHeader(line) {
                    finish()
                    // A header that does not parse ends the entry before it and starts none: its fields count for
                    // no mapping.
                    guard let header = Header(line) else { continue }
                    let mapping = Mapping(range: header.range, residentBytes: 0, path: header.path)
                    current = (mapping, header.isPrivate && !header.isWritable && header.path.hasPrefix("/"), [])
                    continue
                }
                guard current != nil, let colon = line.firstIndex(of: ":") else { continue }
                let field = line[..<colon]
                guard deciding.contains(where: { $0 == field }) else { continue }
                current?.seen.insert(field)
                // "Anonymous:        12 kB"; a field that does not read as kilobytes disqualifies the mapping.
                let value = line[line.index(after: colon)...].split(separator: " ", omittingEmptySubsequences: true)
                guard value.count == 2, value[1] == "kB", let kilobytes = Int(value[0]), kilobytes >= 0 else {
                    current?.eligible = false
                    continue
                }
                switch field {
                case "Rss": current?.mapping.residentBytes = kilobytes * 1024
                default: if kilobytes != 0 { current?.eligible = false }
                }
            }
            finish()
            return mappings
        }

        /// Every mapping, whatever its permissions, of the files with a private executable mapping in `smaps`: the
        /// executable and its shared libraries (data files such as locales are mapped without execute permission).
        public static func codeObjectMappings(smaps: String) -> [Mapping] {
            let headers = smaps.split(separator: "\n", omittingEmptySubsequences: true).compactMap { line in
                Header.looksLikeHeader(line) ? Header(line) : nil
            }
            let objects = Set(
                headers.filter { $0.isPrivate && $0.isExecutable && $0.path.hasPrefix("/") }.map(\.path))
            return headers.filter { objects.contains($0.path) }.map {
                Mapping(range: $0.range, residentBytes: 0, path: $0.path)
            }
        }

        /// A mapping's first line in `/proc/<pid>/smaps` or `maps`: `start-end perms offset dev inode [path]`.
        private struct Header {
            var range: Range<Int>
            var isWritable: Bool
            var isExecutable: Bool
            var isPrivate: Bool
            var path: String

            /// Whether `line` is a mapping's first line rather than a field (`Rss:`, `VmFlags:`): its first word is
            /// an address range, not a name ending in a colon.
            static func looksLikeHeader(_ line: Substring) -> Bool {
                let first = line.prefix { $0 != " " }
                return first.contains("-") && !first.contains(":") && first.first?.isHexDigit == true
            }

            /// `nil` when the line does not parse as a header.
            init?(_ line: Substring) {
                let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
                // Addresses are unsigned: [vsyscall] lies above Int.max.
                guard fields.count >= 5, let dash = fields[0].firstIndex(of: "-"),
                    let start = UInt(fields[0][..<dash], radix: 16),
                    let end = UInt(fields[0][fields[0].index(after: dash)...], radix: 16), end > start,
                    end <= UInt(Int.max)
                else { return nil }
                let permissions = Array(fields[1].utf8)
                guard permissions.count == 4 else { return nil }
                range = Int(start)..<Int(end)
                isWritable = permissions[1] == UInt8(ascii: "w")
                isExecutable = permissions[2] == UInt8(ascii: "x")
                isPrivate = permissions[3] == UInt8(ascii: "p")
                path = fields.count == 6 ? String(fields[5]).trimmingCharacters(in: .whitespaces) : ""
            }
        }
    }
#endif
