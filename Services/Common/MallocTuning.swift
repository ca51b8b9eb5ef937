#if canImport(Glibc)
    import Glibc

    /// glibc's malloc set for a server's steady churn of short-lived buffers.
    ///
    /// By default glibc gives freed memory back to the kernel as soon as 128 kB are free at the top of a heap, and
    /// takes it again with the next burst. Every thread of the cooperative pool has its own arena, so a busy
    /// service gave pages back and faulted them in again thousands of times a second: page faults, zeroed pages
    /// and TLB shoot-downs across both cores. Keeping up to 64 MB free per heap, growing heaps 16 MB at a time
    /// and serving blocks below 4 MB from the heaps took `push.send` from ~1,900 to ~2,500 per second and
    /// push-dispatch from ~745 to ~600 µs of CPU per send on this two-core machine (docs/benchmarks.md §2). The
    /// cost: after a burst a service keeps up to the memory it peaked at (idle RSS is unchanged).
    public enum MallocTuning {
        /// Free bytes at the top of a heap kept before any goes back to the kernel (`M_TRIM_THRESHOLD`).
        public static let trimThreshold: Int32 = 64 << 20
        /// Extra bytes asked of the kernel whenever a heap grows (`M_TOP_PAD`).
        public static let topPad: Int32 = 16 << 20
        /// Blocks this large or larger get a mapping of their own (`M_MMAP_THRESHOLD`).
        public static let mmapThreshold: Int32 = 4 << 20

        /// Applies the three settings, unless `GLIBC_TUNABLES` sets any of malloc's: then the operator's choice
        /// stands alone. Returns whether the settings were applied (glibc accepted all three).
        @discardableResult
        public static func apply(environment: [String: String]) -> Bool {
            if environment["GLIBC_TUNABLES"]?.contains("glibc.malloc.") == true { return false }
            // <malloc.h> is not in Swift's Glibc module: `mallopt` is looked up by name, with its C signature.
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return false }
            let mallopt = unsafeBitCast(symbol, to: (@convention(c) (Int32, Int32) -> Int32).self)
            return mallopt(Parameter.trimThreshold, trimThreshold) == 1 && mallopt(Parameter.topPad, topPad) == 1
                && mallopt(Parameter.mmapThreshold, mmapThreshold) == 1
        }

        /// `mallopt`'s parameter numbers from glibc's <malloc.h> (part of its ABI).
        enum Parameter {
            static let trimThreshold: Int32 = -1  // M_TRIM_THRESHOLD
            static let topPad: Int32 = -2  // M_TOP_PAD
            static let mmapThreshold: Int32 = -3  // M_MMAP_THRESHOLD
        }
    }
#endif
