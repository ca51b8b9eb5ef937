import DevelopmentPKI
import Testing

@Suite("Subject hosts")
struct SubjectHostTests {
    @Test("IPv4 and IPv6 addresses are addresses, everything else a lowercased DNS name")
    func parsing() throws {
        #expect(try SubjectHost("127.0.0.1") == .ipAddress([127, 0, 0, 1]))
        #expect(try SubjectHost("::1") == .ipAddress([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]))
        #expect(try SubjectHost("Push-Dispatch") == .dns("push-dispatch"))
        #expect(try SubjectHost("*.example.com") == .dns("*.example.com"))
        #expect(try SubjectHost("::1").description == "::1")
        #expect(try SubjectHost("10.1.2.3").description == "10.1.2.3")
    }

    @Test("names DNS does not allow are refused", arguments: ["", "bad host", "a..b", ".lead", "trail.", "ü.example"])
    func refused(text: String) {
        #expect(throws: DevelopmentPKIError.self) { try SubjectHost(text) }
    }
}
