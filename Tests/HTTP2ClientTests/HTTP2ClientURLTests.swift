import HTTP2Client
import Testing

@Suite("HTTP2Client base URLs")
struct HTTP2ClientURLTests {
    @Test(
        "malformed base URLs are refused with invalidURL",
        arguments: [
            "", "localhost:8080", "ftp://localhost", "http://", "http://:80", "http://host:0", "http://host:65536",
            "http://host:port", "http://::1:80", "http://[::1", "http://[::1]x", "http://[nothost]:80",
            "http://user@host", "http://host/path?query", "http://host/#fragment", "http://bad host",
        ]
    )
    func malformed(url: String) {
        #expect(throws: HTTP2ClientError.invalidURL) {
            _ = try HTTP2Client(baseURL: url, logger: .quiet)
        }
    }

    @Test(
        "well-formed base URLs are accepted",
        arguments: [
            "http://127.0.0.1:8080", "HTTPS://localhost", "http://[::1]:9000/", "https://auth.internal:8443/api/v1",
        ]
    )
    func wellFormed(url: String) throws {
        _ = try HTTP2Client(baseURL: url, logger: .quiet)
    }

    @Test("error kinds compare by kind and describe what happened")
    func errorDescription() {
        #expect(HTTP2ClientError.timeout == .timeout)
        #expect(HTTP2ClientError.timeout != .connectFailed)
        #expect(HTTP2ClientError.goAway.description.contains("GOAWAY"))
        do {
            _ = try HTTP2Client(baseURL: "ftp://host", logger: .quiet)
            Issue.record("expected invalidURL")
        } catch let error as HTTP2ClientError {
            #expect(error == .invalidURL)
            #expect(error.description.contains("ftp://host"))
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }
}
