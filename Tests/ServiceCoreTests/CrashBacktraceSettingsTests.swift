import ServiceCore
import Testing

#if canImport(Glibc)
    /// A static binary (the image's) makes a backtrace only when `SWIFT_BACKTRACE` names a backtracer: the settings
    /// name the one installed beside the executable, and only when it is there.
    @Suite("Crash backtrace settings")
    struct CrashBacktraceSettingsTests {
        @Test("a backtracer installed in the toolchain's layout beside the executable is named, as a plain path")
        func namesInstalledBacktracer() {
            var asked: [String] = []
            let value = CrashBacktrace.settings(executable: "/usr/local/bin/auth-service") { path in
                asked.append(path)
                return true
            }
            #expect(asked == ["/usr/local/libexec/swift/linux/swift-backtrace-static"])
            #expect(
                value == CrashBacktrace.settings
                    + ",swift-backtrace=/usr/local/libexec/swift/linux/swift-backtrace-static")
        }

        @Test("without a backtracer beside the executable the settings stay the runtime's fast ones")
        func withoutBacktracer() {
            let release = "/work/.build/release/store-service"
            #expect(CrashBacktrace.settings(executable: release) { _ in false } == CrashBacktrace.settings)
            // A path with no directory (never what /proc/self/exe gives) asks for nothing.
            #expect(CrashBacktrace.settings(executable: "auth-service") { _ in true } == CrashBacktrace.settings)
        }

        @Test("dot components of the executable's path are resolved, and a path at the root stays inside it")
        func normalizesPath() {
            var asked: [String] = []
            for executable in ["/opt/./securepush/bin/securepush", "/securepush"] {
                _ = CrashBacktrace.settings(executable: executable) { path in
                    asked.append(path)
                    return false
                }
            }
            #expect(
                asked == [
                    "/opt/securepush/libexec/swift/linux/swift-backtrace-static",
                    "/libexec/swift/linux/swift-backtrace-static",
                ])
        }
    }
#endif
