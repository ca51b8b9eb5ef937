import ChildProcesses
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The check that keeps a test from taking another test's service, on the port it chose, for its own.
@Suite("LoopbackPort: free loopback ports, and who listens on one")
struct LoopbackPortTests {
    @Test("a /proc/net/tcp table: the listening socket's inode on that port, not a connection's nor another port's")
    func parsesTable() {
        let table = """
              sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
               0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 4242 1 0
               1: 0100007F:1F90 0100007F:C350 01 00000000:00000000 00:00000000 00000000  1000        0 4343 1 0
               2: 0100007F:1F91 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 4444 1 0
            """
        #expect(LoopbackPort.listeningInodes(in: table, port: 8080) == ["4242"])
        #expect(LoopbackPort.listeningInodes(in: table, port: 8081) == ["4444"])
        #expect(LoopbackPort.listeningInodes(in: table, port: 9) == [])
    }

    @Test("this process holds the port it listens on; a child process's listener is not this process's")
    func ownership() async throws {
        let socket = try ListeningSocket()
        defer { socket.close() }
        let port = socket.port
        #expect(LoopbackPort.isHeld(byProcess: getpid(), port: port) == true)

        // A child that listens on a port of its own and says which.
        let child = Process()
        child.executableURL = URL(fileURLWithPath: try #require(PythonInterpreter.path()))
        child.arguments = [
            "-c",
            "import socket,sys,time; s=socket.socket(); s.bind(('127.0.0.1',0)); s.listen(); "
                + "print(s.getsockname()[1], flush=True); time.sleep(30)",
        ]
        let output = Pipe()
        child.standardOutput = output
        try child.run()
        defer { if child.isRunning { child.terminate() } }
        let line = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        let childPort = try #require(Int(line.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(LoopbackPort.isHeld(byProcess: getpid(), port: childPort) == false)
        #expect(LoopbackPort.isHeld(byProcess: child.processIdentifier, port: childPort) == true)
        #expect(LoopbackPort.isHeld(byProcess: child.processIdentifier, port: port) == false)
        child.terminate()
        child.waitUntilExit()
        #expect(LoopbackPort.isHeld(byProcess: child.processIdentifier, port: childPort) == false, "a process gone")
    }

    @Test("ports chosen together are all different")
    func distinctPorts() throws {
        let ports = try LoopbackPort.free(count: 20)
        #expect(Set(ports).count == 20, "\(ports)")
        #expect(ports.allSatisfy { (1024...65535).contains($0) })
    }
}
