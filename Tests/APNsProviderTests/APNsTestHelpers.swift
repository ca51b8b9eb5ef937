import APNsMock
import DispatchService
import Foundation
import Logging
import SharedModels
import TestSupport
import Testing

/// A well-formed 32-byte device token (64 hex digits), different for each `index`.
func deviceToken(_ index: Int) -> String {
    let hex = String(index, radix: 16)
    return String(repeating: "0", count: 64 - hex.count) + hex
}

/// A delivery job for `token` carrying only what a real job carries: ids, token, expiry.
func makeJob(
    notificationID: String = UUID().uuidString.lowercased(),
    deviceID: String = UUID().uuidString.lowercased(),
    token: String,
    attempts: Int = 0,
    expiresAt: Date = Date(timeIntervalSince1970: 1_900_000_000)
) -> DeliveryJob {
    DeliveryJob(
        sequence: 1,
        notificationID: notificationID,
        deviceID: deviceID,
        platform: .apns,
        deviceToken: token,
        status: .queued,
        attempts: attempts,
        expiresAt: expiresAt
    )
}

/// Runs `body` with a provider for `configuration` on `clock` (the system clock when `nil`), and shuts the provider down afterwards.
func withProvider<T>(
    _ configuration: APNsConfiguration,
    clock: TestClock? = nil,
    logger: Logger = .quiet,
    _ body: (APNsProvider) async throws -> T
) async throws -> T {
    let now: @Sendable () -> Date = { clock?.now ?? Date() }
    let provider = try APNsProvider(configuration: configuration, logger: logger, now: now)
    do {
        let result = try await body(provider)
        await provider.shutdown()
        return result
    } catch {
        await provider.shutdown()
        throw error
    }
}

/// The JSON object of a JWT segment (header or claims).
func jwtSegment(_ jwt: String, _ index: Int) throws -> [String: Any] {
    let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
    var base64 = String(parts[index]).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    while base64.count % 4 != 0 { base64.append("=") }
    let data = try #require(Data(base64Encoded: base64))
    return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
}
