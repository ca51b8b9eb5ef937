import DispatchService
import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdHTTP2
import JWTKit
import Logging
import ServiceLifecycle
import TestSupport

/// A running mock of the APNs provider API: HTTP/2 over TLS on 127.0.0.1 with a test CA.
public struct APNsMock: Sendable {
    public let port: Int
    public let key: APNsTestKey
    public let topic: String
    public let state: APNsMockState
    public let connections: ConnectionLog
    public let certificates: TestCertificates

    public var baseURL: String { "https://127.0.0.1:\(port)" }

    /// A provider configuration pointing at this mock and trusting its CA.
    public func configuration(mode: APNsPushMode = .alert, alertTitle: String? = nil, alertBody: String? = nil)
        -> APNsConfiguration
    {
        APNsConfiguration(
            baseURL: baseURL,
            caFile: certificates.caCertificatePath,
            signingKey: key.privateKey,
            keyID: key.keyID,
            teamID: key.teamID,
            topic: topic,
            mode: mode,
            alertTitle: alertTitle ?? APNsConfiguration.defaultAlertTitle,
            alertBody: alertBody ?? APNsConfiguration.defaultAlertBody,
            pingInterval: nil
        )
    }
}

/// Runs a mock APNs for the duration of `body`, then shuts it down gracefully (GOAWAY) and waits for it.
///
/// - Parameters:
///   - port: 0 for an ephemeral port, or the port of an earlier mock (restart tests).
///   - state: what the mock records and answers; pass an earlier mock's to keep it across a restart.
///   - certificates: the TLS identity; a fresh test CA when `nil` (removed afterwards).
///   - clock: the mock's clock for judging provider token age (the system clock when `nil`), and `clockSkew`
///     seconds added to it: APNs' clock need not agree with ours.
///   - otherApps: more apps (a provider key of another team and its topic) the mock serves beside `key` and `topic`:
///     each key pushes only to its own topic.
public func withAPNsMock<T>(
    key: APNsTestKey = APNsTestKey(),
    topic: String = "com.example.securepush",
    port: Int = 0,
    state: APNsMockState = APNsMockState(),
    certificates: TestCertificates? = nil,
    clock: TestClock? = nil,
    clockSkew: TimeInterval = 0,
    blackHole: BlackHole? = nil,
    otherApps: [(key: APNsTestKey, topic: String)] = [],
    _ body: (APNsMock) async throws -> T
) async throws -> T {
    let generated = certificates == nil ? try TestCertificates.make() : nil
    defer { generated?.remove() }
    let certificates = certificates ?? generated!

    let keys = JWTKeyCollection()
    var identities: [String: (key: APNsTestKey, topic: String)] = [:]
    for identity in [(key: key, topic: topic)] + otherApps {
        await keys.add(
            ecdsa: try ES256PublicKey(backing: identity.key.privateKey.publicKey),
            kid: JWKIdentifier(string: identity.key.keyID))
        identities[identity.key.keyID] = identity
    }
    let router = Router()
    let now: @Sendable () -> Date = { (clock?.now ?? Date()).addingTimeInterval(clockSkew) }
    APNsMockRoutes(identities: identities, keys: keys, state: state, now: now).register(on: router)

    let connections = ConnectionLog()
    let tlsConfiguration = try certificates.makeServerTLSConfiguration()
    let builder = HTTPServerBuilder { responder in
        ObservedChildChannel(
            base: try HTTP2UpgradeChannel(
                tlsConfiguration: tlsConfiguration,
                configuration: HTTP2ChannelConfiguration(),
                responder: responder
            ),
            log: connections,
            blackHole: blackHole
        )
    }
    return try await withRunningServer(router: router, server: builder, port: port) { boundPort, _ in
        try await body(
            APNsMock(
                port: boundPort,
                key: key,
                topic: topic,
                state: state,
                connections: connections,
                certificates: certificates
            ))
    }
}
