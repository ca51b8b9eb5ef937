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

        // A child that listens on a port of its own and says which, in a file (read without blocking a thread).
        let portFile = FileManager.default.temporaryDirectory.appendingPathComponent("child-port-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: portFile) }
        let child = Process()
        child.executableURL = URL(fileURLWithPath: try #require(PythonInterpreter.path()))
        child.arguments = [
            "-c",
            "import os,socket,sys,time; s=socket.socket(); s.bind(('127.0.0.1',0)); s.listen(); "
                + "open(sys.argv[1]+'.tmp','w').write(str(s.getsockname()[1])); os.rename(sys.argv[1]+'.tmp',sys.argv[1]); "
                + "time.sleep(60)",
            portFile.path,
        ]
        try child.run()
        // SIGKILL: a child may inherit SIGTERM ignored from this process (service lifecycles in other tests ignore it).
        defer { if child.isRunning { kill(child.processIdentifier, SIGKILL) } }
        var childPort: Int?
        for _ in 0..<300 where childPort == nil {
            childPort = (try? String(contentsOf: portFile, encoding: .utf8)).flatMap { Int($0) }
            if childPort == nil { try await Task.sleep(for: .milliseconds(100)) }
        }
        let listening = try #require(childPort, "the child never said its port")
        #expect(LoopbackPort.isHeld(byProcess: getpid(), port: listening) == false)
        #expect(LoopbackPort.isHeld(byProcess: child.processIdentifier, port: listening) == true)
        #expect(LoopbackPort.isHeld(byProcess: child.processIdentifier, port: port) == false)
        kill(child.processIdentifier, SIGKILL)
        try await child.exitStatus(within: .seconds(30))
        #expect(LoopbackPort.isHeld(byProcess: child.processIdentifier, port: listening) == false, "a process gone")
    }

    @Test("ports chosen together are all different")
    func distinctPorts() throws {
        let ports = try LoopbackPort.free(count: 20)
        #expect(Set(ports).count == 20, "\(ports)")
        #expect(ports.allSatisfy { (1024...65535).contains($0) })
    }
}
