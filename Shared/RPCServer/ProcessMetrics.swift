import CoreMetrics
import Foundation

/// The process's resident memory and open file descriptors, read from `/proc/self` on Linux when scraped.
struct ProcessMetrics: Sendable {
    private let residentMemory: Gauge
    private let openFileDescriptors: Gauge
    private let procDirectory: String

    /// - Parameter procDirectory: the process's `/proc` directory (tests point it elsewhere).
    init(factory: any MetricsFactory, procDirectory: String = "/proc/self") {
        residentMemory = Gauge(label: "securepush_process_resident_memory_bytes", factory: factory)
        openFileDescriptors = Gauge(label: "securepush_process_open_fds", factory: factory)
        self.procDirectory = procDirectory
    }

    /// Reads the current values; a value that cannot be read (not Linux) is left as it was.
    func update() {
        if let pages = Self.residentPages(statm: try? String(contentsOfFile: procDirectory + "/statm", encoding: .utf8))
        {
            residentMemory.record(pages * Int(sysconf(Int32(_SC_PAGESIZE))))
        }
        if let entries = try? FileManager.default.contentsOfDirectory(atPath: procDirectory + "/fd") {
            openFileDescriptors.record(entries.count)
        }
    }

    /// The resident page count: the second field of `/proc/<pid>/statm`.
    static func residentPages(statm: String?) -> Int? {
        guard let fields = statm?.split(separator: " "), fields.count > 1 else { return nil }
        return Int(fields[1])
    }
}
