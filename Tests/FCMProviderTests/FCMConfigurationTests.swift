import DispatchService
import Foundation
import ServiceCore
import TestSupport
import Testing

@Suite("FCM configuration")
struct FCMConfigurationTests {
    let account = TestServiceAccount(tokenURI: "https://oauth2.googleapis.com/token")

    @Test("FCM is off when no SECUREPUSH_FCM_ variable is set")
    func unset() throws {
        #expect(try FCMConfiguration.fromEnvironment(ServiceEnvironment([:])) == nil)
    }

    @Test("a key file alone configures FCM with Google's endpoints and the file's project")
    func defaults() throws {
        let path = try account.write()
        let configuration = try #require(
            try FCMConfiguration.fromEnvironment(ServiceEnvironment(["SECUREPUSH_FCM_CREDENTIALS_FILE": path])))
        #expect(configuration.projectID == "securepush-test")
        #expect(configuration.baseURL == "https://fcm.googleapis.com")
        #expect(configuration.caFile == nil)
        #expect(configuration.serviceAccount.clientEmail == account.clientEmail)
        #expect(configuration.serviceAccount.privateKeyID == account.privateKeyID)
        #expect(configuration.serviceAccount.tokenURI == "https://oauth2.googleapis.com/token")
    }

    @Test("SECUREPUSH_FCM_PROJECT_ID overrides the file's project; a trailing slash on the URL is dropped")
    func overrides() throws {
        let path = try account.write(overriding: ["project_id": nil])
        let configuration = try #require(
            try FCMConfiguration.fromEnvironment(
                ServiceEnvironment([
                    "SECUREPUSH_FCM_CREDENTIALS_FILE": path, "SECUREPUSH_FCM_PROJECT_ID": "other-project",
                    "SECUREPUSH_FCM_URL": "https://fcm.example.test/",
                ])))
        #expect(configuration.projectID == "other-project")
        #expect(configuration.baseURL == "https://fcm.example.test")
    }

    @Test(
        "half or wrong configurations are refused, naming what is wrong",
        arguments: [
            (["SECUREPUSH_FCM_PROJECT_ID": "p"], "SECUREPUSH_FCM_CREDENTIALS_FILE"),
            (["SECUREPUSH_FCM_CREDENTIALS_FILE": "/nonexistent/key.json"], "cannot read"),
            (["SECUREPUSH_FCM_URL": "http://fcm.googleapis.com"], "SECUREPUSH_FCM_URL must be an https:// URL"),
            (["SECUREPUSH_FCM_CA_FILE": "/nonexistent/ca.pem"], "SECUREPUSH_FCM_CA_FILE"),
            (["SECUREPUSH_FCM_PROJECT_ID": "Bad Project/../x"], "not a valid Google Cloud project id"),
        ]
    )
    func refused(variables: [String: String], message: String) throws {
        var environment = ["SECUREPUSH_FCM_CREDENTIALS_FILE": try account.write()]
        environment.merge(variables) { $1 }
        if variables["SECUREPUSH_FCM_PROJECT_ID"] == "p" { environment["SECUREPUSH_FCM_CREDENTIALS_FILE"] = nil }
        let error = #expect(throws: ConfigurationError.self) {
            try FCMConfiguration.fromEnvironment(ServiceEnvironment(environment))
        }
        #expect(error?.description.contains(message) == true, "\(error?.description ?? "")")
    }

    @Test(
        "a key file that is not a usable service account is refused",
        arguments: [
            (["type": "authorized_user"], "service_account"),
            (["client_email": nil], "client_email"),
            (["private_key": nil], "private_key"),
            (["private_key": "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"], "PEM RSA private key"),
            (["token_uri": "http://oauth2.googleapis.com/token"], "token_uri must be an https:// URL"),
            (["project_id": nil], "project"),
        ] as [([String: String?], String)]
    )
    func badKeyFile(overrides: [String: String?], message: String) throws {
        let path = try account.write(overriding: overrides.mapValues { $0 as Any? })
        let error = #expect(throws: ConfigurationError.self) {
            try FCMConfiguration.fromEnvironment(ServiceEnvironment(["SECUREPUSH_FCM_CREDENTIALS_FILE": path]))
        }
        #expect(error?.description.contains(message) == true, "\(error?.description ?? "")")
    }

    @Test("a file that is not JSON is refused")
    func notJSON() throws {
        let path = try account.write()
        try Data("not json".utf8).write(to: URL(fileURLWithPath: path))
        #expect(throws: ConfigurationError.self) {
            try FCMConfiguration.fromEnvironment(ServiceEnvironment(["SECUREPUSH_FCM_CREDENTIALS_FILE": path]))
        }
    }
}
