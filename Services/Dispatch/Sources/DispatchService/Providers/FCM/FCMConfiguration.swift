import Foundation
import ServiceCore
import SharedModels

/// How push-dispatch reaches Firebase Cloud Messaging (HTTP v1 API) for `platform: "fcm"` devices.
public struct FCMConfiguration: Sendable {
    /// FCM's production endpoint (`SECUREPUSH_FCM_URL` replaces it).
    public static let defaultBaseURL = SettingCatalog.fcmURL.defaultValue!

    /// The service account whose key signs the OAuth assertions.
    public var serviceAccount: FCMServiceAccount
    /// The Firebase project messages are sent through.
    public var projectID: String
    /// Scheme and host of the FCM API, without a trailing slash.
    public var baseURL: String
    /// A PEM file of CA certificates to trust instead of the system store (private test CAs).
    public var caFile: String?
    /// How long one request (connect, send, read the answer) may take before the attempt counts as a retry.
    public var requestTimeout: Duration
    /// How long to keep trying to open a connection (refused connections are retried with backoff meanwhile).
    public var connectTimeout: Duration

    /// A configuration for tests and embedding; `projectID` defaults to the service account's `project_id`.
    public init(
        serviceAccount: FCMServiceAccount,
        projectID: String? = nil,
        baseURL: String = FCMConfiguration.defaultBaseURL,
        caFile: String? = nil,
        requestTimeout: Duration = .seconds(30),
        connectTimeout: Duration = .seconds(10)
    ) throws {
        guard let projectID = projectID ?? serviceAccount.projectID else {
            throw ConfigurationError(
                "the FCM project is unknown: the service-account file has no project_id and "
                    + "SECUREPUSH_FCM_PROJECT_ID is not set")
        }
        guard Self.isProjectID(projectID) else {
            throw ConfigurationError("the FCM project id '\(projectID)' is not a valid Google Cloud project id")
        }
        self.serviceAccount = serviceAccount
        self.projectID = projectID
        self.baseURL = try RemoteProviderHTTP.checkedHTTPSURL(baseURL, setting: "SECUREPUSH_FCM_URL")
        self.caFile = caFile
        self.requestTimeout = requestTimeout
        self.connectTimeout = connectTimeout
        _ = try RemoteProviderHTTP.checkedHTTPSURL(serviceAccount.tokenURI, setting: "the service account's token_uri")
    }

    /// Reads `SECUREPUSH_FCM_*`; `nil` when `SECUREPUSH_FCM_CREDENTIALS_FILE` and the other FCM variables are unset.
    ///
    /// `SECUREPUSH_FCM_CREDENTIALS_FILE` (the service-account JSON key file, required),
    /// `SECUREPUSH_FCM_PROJECT_ID` (default: the file's `project_id`), `SECUREPUSH_FCM_URL`
    /// (default `https://fcm.googleapis.com`), `SECUREPUSH_FCM_CA_FILE` (default: the system trust store).
    public static func fromEnvironment(_ environment: ServiceEnvironment) throws -> FCMConfiguration? {
        let others = ["SECUREPUSH_FCM_PROJECT_ID", "SECUREPUSH_FCM_URL", "SECUREPUSH_FCM_CA_FILE"]
        guard let credentialsFile = environment.string("SECUREPUSH_FCM_CREDENTIALS_FILE") else {
            if let set = others.first(where: { environment.string($0) != nil }) {
                throw ConfigurationError(
                    "\(set) is set but SECUREPUSH_FCM_CREDENTIALS_FILE is not: FCM needs a service-account key file")
            }
            return nil
        }
        let account = try FCMServiceAccount.load(path: credentialsFile, variable: "SECUREPUSH_FCM_CREDENTIALS_FILE")
        return try FCMConfiguration(
            serviceAccount: account,
            projectID: environment.string("SECUREPUSH_FCM_PROJECT_ID"),
            baseURL: environment.string(SettingCatalog.fcmURL)!,
            caFile: try RemoteProviderHTTP.checkedCAFile(
                environment.string("SECUREPUSH_FCM_CA_FILE"), variable: "SECUREPUSH_FCM_CA_FILE")
        )
    }

    /// The configuration of an app's FCM credentials (issue 27): `SECUREPUSH_FCM_URL` and `SECUREPUSH_FCM_CA_FILE`
    /// are the deployment's; the project is the service account's `project_id`.
    public static func forApp(_ credentials: AppCredentials.FCM, environment: ServiceEnvironment) throws
        -> FCMConfiguration
    {
        let account = try FCMServiceAccount.parse(Data(credentials.serviceAccount.utf8), source: "fcm.serviceAccount")
        return try FCMConfiguration(
            serviceAccount: account,
            baseURL: environment.string(SettingCatalog.fcmURL)!,
            caFile: try RemoteProviderHTTP.checkedCAFile(
                environment.string("SECUREPUSH_FCM_CA_FILE"), variable: "SECUREPUSH_FCM_CA_FILE")
        )
    }

    /// Project ids are lowercase letters, digits and hyphens; old domain-scoped ones add `.` and `:`. Nothing in
    /// them needs escaping in the request path.
    private static func isProjectID(_ value: String) -> Bool {
        !value.isEmpty && value.count <= 100
            && value.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"),
                    UInt8(ascii: "."), UInt8(ascii: ":"):
                    true
                default: false
                }
            }
    }
}
