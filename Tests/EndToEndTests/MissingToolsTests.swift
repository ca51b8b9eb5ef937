import ChildProcesses
import Foundation
import TestSupport
import Testing

@Suite("A machine without the tests' Python modules")
struct MissingToolsTests {
    @Test("the HTTP/2 peer tests are skipped naming the packages to install, not failed")
    func peerTestsSkipNamingThePackages() async throws {
        // This test binary again, for the core's interop suite only, with no usable Python: as on a machine where
        // python3-h2 and python3-httpx were never installed (and PATH and PYTHONPATH hold nothing that has them).
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = ["--testing-library", "swift-testing", "--filter", "HTTP2CoreTests.InteropTests"]
        var environment = ProcessInfo.processInfo.environment
        environment[PythonInterpreter.overrideVariable] = ""
        environment["PATH"] = "/nonexistent"
        environment["PYTHONPATH"] = "/nonexistent"
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        let result = try await process.runCapturingOutput()
        // Swift Testing reports on standard error.
        let output = String(decoding: result.output, as: UTF8.self) + result.error
        #expect(result.status == 0, "\(output.suffix(2000))")
        #expect(
            output.contains(
                #"skipped: "requires python3-h2 and python3-httpx: apt-get install python3-h2 python3-httpx""#),
            "\(output.suffix(2000))")
        #expect(!output.contains("✘"), "\(output.suffix(2000))")
    }

    @Test("the interpreter finder takes the first python3 that imports the modules, and none when none does")
    func finder() throws {
        let directory = TemporaryDirectory.processRootURL.appendingPathComponent("python-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // A python3 that imports nothing (exits 1 for every program).
        let broken = directory.appendingPathComponent("python3").path
        try "#!/bin/sh\nexit 1\n".write(toFile: broken, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: broken)
        #expect(PythonInterpreter.imports(["json"], broken) == false)
        #expect(PythonInterpreter.imports(["json"], "/nonexistent/python3") == false)
        #expect(PythonInterpreter.imports(["no_such_module_securepush"], "/usr/bin/python3") == false)
        #expect(PythonInterpreter.imports(["json"], "/usr/bin/python3"))
        #expect(PythonInterpreter.installHint(["h2", "httpx"]) == "apt-get install python3 python3-h2 python3-httpx")
    }
}
