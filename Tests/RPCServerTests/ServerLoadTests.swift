import Foundation
import RPCServer
import TestSupport
import Testing

/// Issue 23 at the service's edge: the configured forwarding header, and connections per address, as a client and
/// `/metrics` see them.
@Suite("The RPC server's connection limits and forwarding header, with their metrics")
struct ServerLoadTests {
    @Test("a trusted proxy's request carrying only the other forwarding header names the proxy, and is counted")
    func headerMismatch() async throws {
        var configuration = RPCServerConfiguration(port: 0)
        configuration.trustedProxies = [try #require(IPNetwork("127.0.0.1/32"))]
        try await CoreServerHarness.with(configuration: configuration, metrics: .prometheus()) { server in
            let call = ["-d", CoreServerTests.call("test.whoami"), "\(server.url)/rpc"]
            let both = try await Curl.run(
                CoreServerTests.h2c + ["-H", "forwarded: for=6.6.6.6", "-H", "x-forwarded-for: 203.0.113.7"] + call)
            #expect(both.body.contains(#""clientAddress":"203.0.113.7""#), "X-Forwarded-For is the configured one")
            let spoofed = try await Curl.run(CoreServerTests.h2c + ["-H", "forwarded: for=6.6.6.6"] + call)
            #expect(spoofed.body.contains(#""clientAddress":"127.0.0.1""#), "\(spoofed.body)")
            let metrics = try await Curl.run(["--http2-prior-knowledge", "\(server.url)/metrics"])
            #expect(metrics.body.contains("securepush_forwarded_header_mismatch_total 1"), "\(metrics.body)")
        }
    }

    @Test("connections past SECUREPUSH_MAX_CONNECTIONS_PER_ADDRESS are closed at accept and counted")
    func connectionsPerAddress() async throws {
        var configuration = RPCServerConfiguration(port: 0)
        configuration.maxConnectionsPerAddress = 3
        try await CoreServerHarness.with(configuration: configuration, metrics: .prometheus()) { server in
            // Five connections from 127.0.0.2 that stay open: the server keeps three.
            let script = """
                import socket, time
                held = []
                for _ in range(5):
                    s = socket.create_connection(("127.0.0.1", \(server.port)), source_address=("127.0.0.2", 0))
                    s.sendall(b"PRI * HTTP/2.0\\r\\n\\r\\nSM\\r\\n\\r\\n\\x00\\x00\\x00\\x04\\x00\\x00\\x00\\x00\\x00")
                    held.append(s)
                def alive(s):
                    s.setblocking(False)
                    try:
                        while s.recv(65536):
                            pass
                    except BlockingIOError:
                        return True
                    except OSError:
                        pass
                    return False
                # the refusals may take a moment on a busy machine (bounded, well inside the handshake timeout)
                deadline = time.time() + 6
                while time.time() < deadline:
                    time.sleep(0.25)
                    held = [s for s in held if alive(s)]
                    if len(held) <= 3:
                        break
                print(len(held))
                """
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", "-c", script]
            let result = try await process.runCapturingOutput()
            #expect(
                String(decoding: result.output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == "3")
            // 127.0.0.1 is another address: still served.
            let metrics = try await Curl.run(["--http2-prior-knowledge", "\(server.url)/metrics"])
            #expect(metrics.status == 200)
            #expect(
                metrics.body.contains(#"securepush_connections_refused_total{reason="per_address"} 2"#),
                "\(metrics.body)")
            #expect(metrics.body.contains("securepush_connections_open "))
            #expect(metrics.body.contains("securepush_http_buffered_request_bytes "))
        }
    }
}
