import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The CPU time (user + system) a process has used so far, read from Linux's `/proc/<pid>/stat`: what a scenario
/// costs a service is the difference around it.
enum ProcessCPU {
    /// Seconds of CPU `pid` used; `nil` when it cannot be read (no such process, or not Linux).
    static func seconds(pid: Int32) -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        // After the command name: state is field 3, utime field 14 and stime field 15 (1-based).
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Seconds of CPU used by all of `pids` together (a process that cannot be read counts nothing).
    static func seconds(pids: [Int32]) -> Double {
        pids.compactMap { seconds(pid: $0) }.reduce(0, +)
    }
}
