import RPCServer
import ServiceCore
import Testing

/// `SECUREPUSH_CORS_ORIGINS`: which browser origins may call a service (issue 26).
@Suite("CORS origins")
struct CORSSettingsTests {
    @Test("unset: development allows the web inbox's origins on push-dispatch's port, production none")
    func defaults() throws {
        let development = try ServiceEnvironment(["SECUREPUSH_DISPATCH_PORT": "9443"]).corsPolicy()
        #expect(development.origins == ["http://127.0.0.1:9443", "http://localhost:9443"])
        #expect(!development.allowsAnyOrigin)
        let production = try ServiceEnvironment(["SECUREPUSH_ENV": "production"]).corsPolicy()
        #expect(!production.isEnabled)
    }

    @Test("entries are normalized as browsers send Origin: lowercase, no default port, no trailing slash")
    func normalized() throws {
        let policy = try ServiceEnvironment([
            "SECUREPUSH_CORS_ORIGINS": " HTTPS://App.Example.com:443 , http://[::1]:8083,https://inbox.example.com:8443"
        ]).corsPolicy()
        #expect(policy.origins == ["https://app.example.com", "http://[::1]:8083", "https://inbox.example.com:8443"])
        #expect(policy.allows("https://app.example.com") && policy.allows("HTTPS://APP.EXAMPLE.COM"))
        #expect(!policy.allows("https://app.example.com.evil.example") && !policy.allows("null"))
    }

    @Test(
        "what is not an origin is refused at start, naming the variable",
        arguments: [
            "https://app.example.com/", "https://app.example.com/path", "ftp://app.example.com", "app.example.com",
            "https://user@app.example.com", "https://app.example.com:0", "https://app.example.com:99999", "https://",
            "https://app.example.com?x=1",
        ])
    func refused(entry: String) {
        #expect {
            try ServiceEnvironment(["SECUREPUSH_CORS_ORIGINS": entry]).corsPolicy()
        } throws: { error in
            "\(error)".contains("SECUREPUSH_CORS_ORIGINS") && "\(error)".contains("is not an origin")
        }
    }

    @Test("production refuses '*' and cleartext origins other than loopback; development accepts '*'")
    func production() throws {
        for entry in ["*", "http://app.example.com", "http://127.evil.example"] {
            #expect(throws: ConfigurationError.self) {
                try ServiceEnvironment(["SECUREPUSH_ENV": "production", "SECUREPUSH_CORS_ORIGINS": entry]).corsPolicy()
            }
        }
        let loopback = try ServiceEnvironment([
            "SECUREPUSH_ENV": "production", "SECUREPUSH_CORS_ORIGINS": "http://127.0.0.1:8083,http://localhost:8083",
        ]).corsPolicy()
        #expect(loopback.origins.count == 2)
        let any = try ServiceEnvironment(["SECUREPUSH_CORS_ORIGINS": "*"]).corsPolicy()
        #expect(any.allowsAnyOrigin && any.allows("https://anything.example"))
        #expect(!any.allows("null") && !any.allows("NULL"), "an opaque origin is never allowed, not even by '*'")
    }
}
