import Testing

@testable import HTTP2Core

/// Looking a field up by name ignores case, as HTTP field names do (RFC 9110 §5.1).
@Suite("Header fields by name")
struct HTTP2HeadersTests {
    @Test("a name in any case finds the field; values come back in order; an unknown name finds nothing")
    func lookupIgnoresCase() {
        var headers: HTTP2Headers = ["Content-Type": "application/json", "x-Seen": "1"]
        headers.add("X-SEEN", "2")
        for name in ["content-type", "Content-Type", "CONTENT-TYPE", "cOnTeNt-TyPe"] {
            #expect(headers[name] == "application/json", "\(name)")
        }
        #expect(headers.values("x-seen") == ["1", "2"])
        #expect(headers.values("X-Seen") == ["1", "2"])
        #expect(headers["content-typ"] == nil)
        #expect(headers["content-type "] == nil)
        #expect(headers.values("absent").isEmpty)
    }

    @Test("a name with letters beyond ASCII is lowercased as String does, and only matches such a field")
    func nonASCIIName() {
        let headers: HTTP2Headers = ["X-Ünïcode": "yes"]
        #expect(headers["x-ünïcode"] == "yes")
        #expect(headers["X-ÜNÏCODE"] == "yes")
        // Only a letter beyond ASCII in capitals: the check for capitals must look past ASCII.
        #expect(headers["x-Ünïcode"] == "yes")
        #expect(headers["x-unicode"] == nil)
    }
}
