import ChildProcesses
import Foundation

/// The programs outside Swift that the core's tests talk to, and whether this machine has them: a suite that needs
/// one is skipped, naming the Debian package, when it is missing (never failed with a timeout hiding the cause).
enum PeerTools {
    /// What the Python peers import.
    static let pythonModules = ["h2", "httpx"]
    /// A Python that imports ``pythonModules``; `nil` when there is none.
    static var python: String? { PythonInterpreter.path(importing: pythonModules) }
    static var hasPython: Bool { python != nil }
    static var hasH2load: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/h2load") }
    static var hasNghttpd: Bool { FileManager.default.isExecutableFile(atPath: "/usr/sbin/nghttpd") }
    static var hasCurl: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/curl") }

    /// The Python to run a peer script with; throws (naming the packages) when there is none.
    static func requirePython() throws -> String {
        guard let python else {
            throw Subprocess.PeerFailed(
                description: "no python3 imports \(pythonModules): \(PythonInterpreter.installHint(pythonModules))")
        }
        return python
    }
}
