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
    /// Only private mappings of a file that are not writable and hold no anonymous page are released: every page of
    /// such a mapping is the file's page as it is on disk, so reading it again gives the same bytes. A page that was
    /// ever written (a text relocation, a relocated read-only-after-relocation page, a debugger's breakpoint) is an
    /// anonymous copy, and a mapping holding one is left alone, as are locked mappings. And only mappings of
    /// ``objects``, files this process cannot unmap: between reading `/proc/self/smaps` and `madvise`, a mapping
    /// another thread unmapped could be replaced by memory whose contents `MADV_DONTNEED` would lose; the executable
    /// and the libraries the dynamic loader mapped before `main` stay mapped for the life of the process.
    public struct MappedFilePages: Sendable {
        /// A mapping ``release()`` gives back: its address range and how much of it was resident.
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

        /// The files whose mappings ``release()`` gives back.
        public let objects: Set<String>

        /// The executable and the shared libraries mapped now (the files with an executable mapping in
        /// `/proc/self/smaps`): made first thing in `main`, the ones the dynamic loader mapped, which are never
        /// unmapped. Empty when `/proc` is unreadable.
        public init() {
            self.init(objects: Self.codeObjects(smaps: Self.readSmaps() ?? ""))
        }

        /// Releases only mappings of `objects` (absolute paths as `/proc/self/smaps` names them), files the caller
        /// keeps mapped while ``release()`` runs.
        public init(objects: Set<String>) {
            self.objects = objects
        }

        /// Unmaps the resident pages of every releasable mapping of ``objects`` (``releasable(smaps:)`` of
        /// `/proc/self/smaps`); returns the resident bytes it released (0 when `/proc` is unreadable or the system
        /// refused).
        @discardableResult
        public func release() -> Int {
            guard let smaps = Self.readSmaps() else { return 0 }
            var released = 0
            for mapping in Self.releasable(smaps: smaps)
            where mapping.residentBytes > 0 && objects.contains(mapping.path) {
                guard let start = UnsafeMutableRawPointer(bitPattern: mapping.range.lowerBound),
                    madvise(start, mapping.range.count, MADV_DONTNEED) == 0
                else { continue }
                released += mapping.residentBytes
            }
            return released
        }

        /// All of `/proc/self/smaps`. Read to its end: the file reports no size, and `String(contentsOfFile:)` returns
        /// only what its first read gets (~4 kB, the first few mappings).
        static func readSmaps() -> String? {
            guard let handle = FileHandle(forReadingAtPath: "/proc/self/smaps") else { return nil }
            defer { try? handle.close() }
            guard let data = try? handle.readToEnd() else { return nil }
            return String(decoding: data, as: UTF8.self)
        }

        /// The mappings of `smaps` (the text of a `/proc/<pid>/smaps`) that may be released: private, not writable,
        /// of a file (an absolute path, not `[vdso]` or an anonymous region), with no anonymous and no locked bytes.
        public static func releasable(smaps: String) -> [Mapping] {
            var mappings: [Mapping] = []
            var current: (mapping: Mapping, eligible: Bool)?
            func finish() {
                if let done = current, done.eligible { mappings.append(done.mapping) }
                current = nil
            }
            for line in smaps.split(separator: "\n", omittingEmptySubsequences: true) {
                if let header = Header(line) {
                    finish()
                    let mapping = Mapping(range: header.range, residentBytes: 0, path: header.path)
                    current = (mapping, header.isPrivate && !header.isWritable && header.path.hasPrefix("/"))
                    continue
                }
                guard current != nil, let colon = line.firstIndex(of: ":") else { continue }
                let field = line[..<colon]
                guard field == "Rss" || field == "Anonymous" || field == "Locked" else { continue }
                // "Anonymous:        12 kB"; a field that does not read as kilobytes disqualifies the mapping.
                let value = line[line.index(after: colon)...].split(separator: " ", omittingEmptySubsequences: true)
                guard value.count == 2, value[1] == "kB", let kilobytes = Int(value[0]) else {
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

        /// The files with a private executable mapping in `smaps`: the executable and its shared libraries (data
        /// files such as locales are mapped without execute permission).
        public static func codeObjects(smaps: String) -> Set<String> {
            var objects: Set<String> = []
            for line in smaps.split(separator: "\n", omittingEmptySubsequences: true) {
                guard let header = Header(line), header.isPrivate, header.isExecutable, header.path.hasPrefix("/")
                else { continue }
                objects.insert(header.path)
            }
            return objects
        }

        /// A mapping's first line in `/proc/<pid>/smaps` or `maps`: `start-end perms offset dev inode [path]`.
        private struct Header {
            var range: Range<Int>
            var isWritable: Bool
            var isExecutable: Bool
            var isPrivate: Bool
            var path: String

            /// `nil` for any other line (a field such as `Rss:` or `VmFlags:`).
            init?(_ line: Substring) {
                let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
                guard fields.count >= 5, let dash = fields[0].firstIndex(of: "-"),
                    let start = Int(fields[0][..<dash], radix: 16),
                    let end = Int(fields[0][fields[0].index(after: dash)...], radix: 16), end > start
                else { return nil }
                let permissions = Array(fields[1].utf8)
                guard permissions.count == 4, permissions[0] == UInt8(ascii: "r") || permissions[0] == UInt8(ascii: "-")
                else { return nil }
                range = start..<end
                isWritable = permissions[1] == UInt8(ascii: "w")
                isExecutable = permissions[2] == UInt8(ascii: "x")
                isPrivate = permissions[3] == UInt8(ascii: "p")
                path = fields.count == 6 ? String(fields[5]).trimmingCharacters(in: .whitespaces) : ""
            }
        }
    }
#endif
