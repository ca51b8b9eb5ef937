#if canImport(Glibc)
    import Glibc
    import TestProcessLimits
    import Testing

    /// The suite needs ~1,000 open files at its peak; a shell's usual soft limit is 1,024 (Tests/TestProcessLimits).
    @Suite("The test process's open-file limit")
    struct TestProcessLimitTests {
        @Test("the soft limit was raised to the hard limit before any test ran")
        func raisedToHardLimit() throws {
            var limit = rlimit()
            #expect(getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0)
            #expect(limit.rlim_cur == limit.rlim_max, "soft \(limit.rlim_cur), hard \(limit.rlim_max)")
            // Raised by Tests/TestProcessLimits's constructor, which recorded the limit it left.
            #expect(UInt(securepush_test_open_file_limit()) == UInt(limit.rlim_max))
        }

        @Test("the suite runs a bounded number of tests at once (8 per core unless the environment says otherwise)")
        func boundedParallelism() throws {
            let width = securepush_test_parallelization_width()
            #expect(width > 0)
            let variable = try #require(getenv("SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH"))
            #expect(Int(String(cString: variable)) == width)
        }
    }
#endif
