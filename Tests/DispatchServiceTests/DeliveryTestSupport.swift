import DispatchService
import Foundation
import GRDB
import Metrics
import SharedModels
import TestSupport

extension DeliveryConfiguration {
    /// Settings for tests: a tiny, deterministic backoff (always the full ceiling: 10 ms, 20 ms, 40 ms, 40 ms…),
    /// a short idle tick, and the given concurrency, attempt bound and lease.
    static func fast(
        concurrency: Int = 4, maxAttempts: Int = 10, lease: Duration = .seconds(60),
        idle: Duration = .milliseconds(100)
    ) -> DeliveryConfiguration {
        DeliveryConfiguration(
            concurrency: concurrency, leaseTimeout: lease, idleInterval: idle,
            retry: RetryPolicy(
                baseDelay: .milliseconds(10), maxDelay: .milliseconds(40), maxAttempts: maxAttempts,
                randomFraction: { 1 }))
    }
}

/// A `delivery` row as stored, for what `push.status` does not show (due time, lease).
struct DeliveryRow: Sendable {
    var status: String
    var attempts: Int
    var lastError: String?
    var nextAttemptAt: Date?
    var updatedAt: Date
    var leaseOwner: String?
}

extension DispatchHarness {
    /// A harness with a `LiveClock`, fast delivery settings and `providers` (their workers are not started).
    static func remote(
        _ providers: [any RemotePushProvider], delivery: DeliveryConfiguration = .fast(), databasePath: String? = nil,
        clock: LiveClock = LiveClock(), metrics: any MetricsFactory = NOOPMetricsHandler.instance
    ) async throws -> DispatchHarness {
        try await DispatchHarness(
            configuration: configuration(databasePath: databasePath, delivery: delivery), providers: providers,
            clock: clock, metrics: metrics)
    }

    /// The stored row of the notification's delivery to `deviceID` (the only one when `nil`).
    func deliveryRow(_ notificationID: String, deviceID: String? = nil) async throws -> DeliveryRow? {
        try await components.sqlite!.read { db in
            try Row.fetchOne(
                db,
                sql: """
                    SELECT * FROM delivery WHERE notification_id = ? AND (? IS NULL OR device_id = ?)
                    ORDER BY sequence LIMIT 1
                    """,
                arguments: [notificationID, deviceID, deviceID]
            ).map { row in
                DeliveryRow(
                    status: row["status"], attempts: row["attempts"], lastError: row["last_error"],
                    nextAttemptAt: (row["next_attempt_at"] as Int64?).map {
                        Date(timeIntervalSince1970: Double($0) / 1000)
                    },
                    updatedAt: Date(timeIntervalSince1970: Double(row["updated_at"] as Int64) / 1000),
                    leaseOwner: row["lease_owner"])
            }
        }
    }

    /// The single delivery of a notification as `push.status` shows it.
    func delivery(_ notificationID: String) async throws -> Push.Status.DeliveryState? {
        try await status(notificationID).deliveries.first
    }

    /// Waits (bounded) until the notification's single delivery has `status`.
    func waitForStatus(_ notificationID: String, _ status: DeliveryStatus) async throws -> Bool {
        try await eventually { try await delivery(notificationID)?.status == status }
    }

    /// Whether the user's device is listed as active.
    func isActive(_ deviceID: String, user: String) async throws -> Bool? {
        try await client.call(Devices.List.self, Empty(), token: try await signer.userToken(user)).devices
            .first { $0.deviceId == deviceID }?.active
    }
}
