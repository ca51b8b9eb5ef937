import Foundation
import HTTP2Client
import Logging
import SharedModels

/// Asks a SecurePush service whether it is ready: `GET /health` over HTTP/2 (cleartext or TLS), as container health
/// checks and load balancers do.
public enum ServiceHealthCheck {
    /// Fetches and decodes `GET <baseURL>/health`.
    ///
    /// - Parameters:
    ///   - baseURL: the service's base URL, e.g. `https://localhost:8081`.
    ///   - caFile: a PEM CA to trust for `https` (a private CA); `nil` uses the system trust store.
    ///   - timeout: how long connecting and answering may take together.
    /// - Returns: the service's answer; ``ServiceHealth/isReady`` tells whether every check passed (HTTP 200) or not (503).
    /// - Throws: ``HTTP2ClientError`` when the service cannot be reached, ``ServiceHealthCheckError`` when it answers
    ///   with anything but a health body.
    public static func check(
        baseURL: String, caFile: String?, timeout: Duration = .seconds(3), logger: Logger
    ) async throws -> ServiceHealth {
        let configuration = HTTP2ClientConfiguration(
            connectTimeout: timeout, requestTimeout: timeout, trustRootsPEMFile: caFile, maxResponseBytes: 64 << 10)
        let client = try HTTP2Client(baseURL: baseURL, configuration: configuration, logger: logger)
        let response: HTTP2Response
        do {
            response = try await client.execute(
                HTTP2Request(path: "/health", headers: [("accept", "application/json")]))
        } catch {
            await client.shutdown()
            throw error
        }
        await client.shutdown()
        guard response.status == 200 || response.status == 503,
            let health = try? RPCCodec.makeDecoder().decode(
                ServiceHealth.self, from: Data(response.body.readableBytesView))
        else {
            throw ServiceHealthCheckError(status: response.status)
        }
        return health
    }
}

/// A `GET /health` answer that was not a SecurePush health body.
public struct ServiceHealthCheckError: Error, CustomStringConvertible, Sendable {
    /// The HTTP status received.
    public let status: Int

    public var description: String { "GET /health answered HTTP \(status) without a health body" }
}
