import DispatchService
import Foundation
import ServiceCore
import Testing

@Suite("WNS configuration")
struct WNSConfigurationTests {
    let credentials = ["SECUREPUSH_WNS_CLIENT_ID": "ms-app://s-1-15-2-1", "SECUREPUSH_WNS_CLIENT_SECRET": "secret"]

    @Test("WNS is off when no SECUREPUSH_WNS_ variable is set")
    func unset() throws {
        #expect(try WNSConfiguration.fromEnvironment(ServiceEnvironment([:])) == nil)
    }

    @Test("client id and secret alone configure WNS with Microsoft's token endpoint and strict channel hosts")
    func defaults() throws {
        let configuration = try #require(try WNSConfiguration.fromEnvironment(ServiceEnvironment(credentials)))
        #expect(configuration.clientID == "ms-app://s-1-15-2-1")
        #expect(configuration.clientSecret == "secret")
        #expect(configuration.tokenURL == "https://login.live.com/accesstoken.srf")
        #expect(configuration.scope == "notify.windows.com")
        #expect(configuration.caFile == nil)
        #expect(configuration.allowAnyHost == false)
    }

    @Test("the token endpoint, scope and host rule can be changed")
    func overrides() throws {
        var variables = credentials
        variables["SECUREPUSH_WNS_TOKEN_URL"] = "https://login.microsoftonline.com/tenant/oauth2/v2.0/token"
        variables["SECUREPUSH_WNS_SCOPE"] = "https://wns.notify.windows.com/.default"
        variables["SECUREPUSH_WNS_ALLOW_ANY_HOST"] = "true"
        let configuration = try #require(try WNSConfiguration.fromEnvironment(ServiceEnvironment(variables)))
        #expect(configuration.tokenURL == "https://login.microsoftonline.com/tenant/oauth2/v2.0/token")
        #expect(configuration.scope == "https://wns.notify.windows.com/.default")
        #expect(configuration.allowAnyHost)
    }

    @Test(
        "half or wrong configurations are refused, naming what is wrong",
        arguments: [
            (["SECUREPUSH_WNS_CLIENT_SECRET": nil], "SECUREPUSH_WNS_CLIENT_ID"),
            (["SECUREPUSH_WNS_CLIENT_ID": nil], "SECUREPUSH_WNS_CLIENT_SECRET"),
            (["SECUREPUSH_WNS_TOKEN_URL": "http://login.live.com/accesstoken.srf"], "SECUREPUSH_WNS_TOKEN_URL"),
            (["SECUREPUSH_WNS_CA_FILE": "/nonexistent/ca.pem"], "SECUREPUSH_WNS_CA_FILE"),
            (["SECUREPUSH_WNS_ALLOW_ANY_HOST": "maybe"], "SECUREPUSH_WNS_ALLOW_ANY_HOST"),
            (["SECUREPUSH_WNS_ALLOW_ANY_HOST": "1", "SECUREPUSH_ENV": "production"], "production"),
        ] as [([String: String?], String)]
    )
    func refused(changes: [String: String?], message: String) throws {
        var variables = credentials
        for (name, value) in changes { variables[name] = value }
        let error = #expect(throws: ConfigurationError.self) {
            try WNSConfiguration.fromEnvironment(ServiceEnvironment(variables))
        }
        #expect(error?.description.contains(message) == true, "\(error?.description ?? "")")
    }

    @Test("only the WNS token URL set, without credentials, is refused rather than ignored")
    func strayVariable() throws {
        #expect(throws: ConfigurationError.self) {
            try WNSConfiguration.fromEnvironment(
                ServiceEnvironment(["SECUREPUSH_WNS_TOKEN_URL": "https://login.live.com/accesstoken.srf"]))
        }
    }
}
