import RPCServer
import ServiceCore
import Testing

/// Issue 33: `SECUREPUSH_STREAMING_HEADER_TABLE_BYTES` sizes the HPACK table a connection keeps once it holds an event
/// stream; an operator whose clients mishandle a smaller table sets 4096.
@Suite("SECUREPUSH_STREAMING_HEADER_TABLE_BYTES")
struct StreamingHeaderTableSettingTests {
    static let name = "SECUREPUSH_STREAMING_HEADER_TABLE_BYTES"

    @Test("unset, the HTTP/2 limits keep no table for streaming connections; 4096 keeps the RFC's")
    func reachesLimits() throws {
        let unset = try ServiceEnvironment([:]).server(port: SettingCatalog.dispatchPort)
        #expect(unset.streamingHeaderTableBytes == 0)
        #expect(unset.limits.streamingHeaderTableBytes == 0)
        let kept = try ServiceEnvironment([Self.name: "4096"]).server(port: SettingCatalog.dispatchPort)
        #expect(kept.limits.streamingHeaderTableBytes == 4096)
    }

    @Test("a value outside 0-4096 refuses the start, naming the variable", arguments: ["4097", "-1", "4k"])
    func refused(value: String) {
        #expect {
            try ServiceEnvironment([Self.name: value]).server(port: SettingCatalog.dispatchPort)
        } throws: { error in
            "\(error)".contains(Self.name)
        }
    }
}
