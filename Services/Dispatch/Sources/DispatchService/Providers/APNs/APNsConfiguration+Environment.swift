import Crypto
import Foundation
import ServiceCore
import SharedModels

extension APNsConfiguration {
    /// The variables that configure credentials and topic: all set enables APNs, none set disables it.
    static let requiredVariables = [
        "SECUREPUSH_APNS_KEY_FILE", "SECUREPUSH_APNS_KEY_ID", "SECUREPUSH_APNS_TEAM_ID", "SECUREPUSH_APNS_TOPIC",
    ]

    /// Reads the APNs configuration; `nil` when APNs is not configured (none of the required variables is set).
    ///
    /// Required: `SECUREPUSH_APNS_KEY_FILE` (the `.p8` key, PEM PKCS#8), `SECUREPUSH_APNS_KEY_ID`,
    /// `SECUREPUSH_APNS_TEAM_ID`, `SECUREPUSH_APNS_TOPIC` (the bundle id). Optional, with the defaults
    /// ``SettingCatalog`` declares: `SECUREPUSH_APNS_ENVIRONMENT`, `SECUREPUSH_APNS_URL` (overrides the
    /// environment's endpoint), `SECUREPUSH_APNS_CA_FILE`, `SECUREPUSH_APNS_MODE`, `SECUREPUSH_APNS_ALERT_TITLE`,
    /// `SECUREPUSH_APNS_ALERT_BODY` and `SECUREPUSH_APNS_PING_INTERVAL` (0 disables).
    /// - Throws: `ConfigurationError` naming the variable that is missing or wrong.
    public static func fromEnvironment(_ environment: ServiceEnvironment) throws -> APNsConfiguration? {
        let missing = requiredVariables.filter { environment.string($0) == nil }
        if missing.count == requiredVariables.count { return nil }
        guard missing.isEmpty else {
            throw ConfigurationError(
                "APNs is partly configured: \(missing.joined(separator: ", ")) must be set too "
                    + "(APNs needs \(requiredVariables.joined(separator: ", ")))"
            )
        }
        let keyFile = environment.string("SECUREPUSH_APNS_KEY_FILE")!
        let configuration = APNsConfiguration(
            baseURL: try baseURL(environment),
            caFile: try caFile(environment),
            signingKey: try signingKey(path: keyFile),
            keyID: try identifier(environment, "SECUREPUSH_APNS_KEY_ID"),
            teamID: try identifier(environment, "SECUREPUSH_APNS_TEAM_ID"),
            topic: try topic(environment),
            mode: try mode(environment),
            alertTitle: environment.string(SettingCatalog.apnsAlertTitle)!,
            alertBody: environment.string(SettingCatalog.apnsAlertBody)!,
            pingInterval: try pingInterval(environment)
        )
        try configuration.validate()
        return configuration
    }

    /// The configuration of an app's APNs credentials (issue 27): the connection settings (`SECUREPUSH_APNS_URL`,
    /// `_CA_FILE`, `_MODE`, `_PING_INTERVAL`) are the deployment's; the environment and alert texts default to it.
    /// - Throws: `ConfigurationError` naming the credential field that is wrong.
    public static func forApp(_ credentials: AppCredentials.APNs, environment: ServiceEnvironment) throws
        -> APNsConfiguration
    {
        if let chosen = credentials.environment, !["production", "sandbox"].contains(chosen) {
            throw ConfigurationError("apns.environment must be production or sandbox, got '\(chosen.prefix(64))'")
        }
        let signingKey: P256.Signing.PrivateKey
        do {
            signingKey = try P256.Signing.PrivateKey(pemRepresentation: credentials.privateKey)
        } catch {
            throw ConfigurationError("apns.privateKey is not a P-256 private key in PEM (the AuthKey_<id>.p8 file)")
        }
        let configuration = APNsConfiguration(
            baseURL: try baseURL(environment, chosen: credentials.environment),
            caFile: try caFile(environment),
            signingKey: signingKey,
            keyID: try identifier(credentials.keyId, name: "apns.keyId"),
            teamID: try identifier(credentials.teamId, name: "apns.teamId"),
            topic: try topic(credentials.topic, name: "apns.topic"),
            mode: try mode(environment),
            alertTitle: credentials.alertTitle ?? environment.string(SettingCatalog.apnsAlertTitle)!,
            alertBody: credentials.alertBody ?? environment.string(SettingCatalog.apnsAlertBody)!,
            pingInterval: try pingInterval(environment)
        )
        try configuration.validate()
        return configuration
    }

    private static func baseURL(_ environment: ServiceEnvironment, chosen: String? = nil) throws -> String {
        if let url = environment.string("SECUREPUSH_APNS_URL") {
            guard url.lowercased().hasPrefix("https://") || url.lowercased().hasPrefix("http://") else {
                throw ConfigurationError("SECUREPUSH_APNS_URL must be an https:// URL, got '\(url)'")
            }
            return url
        }
        let named = try chosen ?? environment.choice(SettingCatalog.apnsEnvironment)
        return named == "sandbox" ? sandboxURL : productionURL
    }

    private static func caFile(_ environment: ServiceEnvironment) throws -> String? {
        guard let path = environment.string("SECUREPUSH_APNS_CA_FILE") else { return nil }
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw ConfigurationError("SECUREPUSH_APNS_CA_FILE: cannot read '\(path)'")
        }
        return path
    }

    private static func signingKey(path: String) throws -> P256.Signing.PrivateKey {
        let pem: String
        do {
            pem = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ConfigurationError("SECUREPUSH_APNS_KEY_FILE: cannot read '\(path)': \(error.localizedDescription)")
        }
        do {
            return try P256.Signing.PrivateKey(pemRepresentation: pem)
        } catch {
            throw ConfigurationError(
                "SECUREPUSH_APNS_KEY_FILE: '\(path)' is not a P-256 private key in PEM (the AuthKey_<id>.p8 file from "
                    + "Apple)"
            )
        }
    }

    /// Key and team ids are short alphanumeric strings (10 characters at Apple).
    private static func identifier(_ environment: ServiceEnvironment, _ name: String) throws -> String {
        try identifier(environment.string(name)!, name: name)
    }

    private static func identifier(_ value: String, name: String) throws -> String {
        let alphanumeric = value.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar))
        }
        guard alphanumeric, value.count <= 64 else {
            throw ConfigurationError(
                "\(name) must be the alphanumeric id Apple shows (e.g. 'ABC123DEFG'), got '\(value.prefix(64))'")
        }
        return value
    }

    /// A bundle id, possibly with Apple's suffixes such as `.voip`: it travels as a header value.
    private static func topic(_ environment: ServiceEnvironment) throws -> String {
        try topic(environment.string("SECUREPUSH_APNS_TOPIC")!, name: "SECUREPUSH_APNS_TOPIC")
    }

    private static func topic(_ topic: String, name: String) throws -> String {
        let allowed = topic.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII
                && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
                    || ".-_".unicodeScalars.contains(scalar))
        }
        guard allowed, topic.count <= 255 else {
            throw ConfigurationError(
                "\(name) must be the app's bundle id (e.g. 'com.example.app'), got '\(topic.prefix(255))'")
        }
        return topic
    }

    private static func mode(_ environment: ServiceEnvironment) throws -> APNsPushMode {
        try environment.choice(SettingCatalog.apnsMode, as: APNsPushMode.self)
    }

    private static func pingInterval(_ environment: ServiceEnvironment) throws -> Duration? {
        let seconds = try environment.int(SettingCatalog.apnsPingInterval)
        return seconds == 0 ? nil : .seconds(seconds)
    }
}
