import DispatchService
import Foundation
import ServiceCore
import SharedModels
import TestSupport
import Testing

extension DispatchRepositoryTests {
    static let sendTrace = TraceParent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")!

    @Test(
        "a send's trace context and creation time come back with its jobs: recorded, claimed, and read by a stream",
        arguments: TestPostgres.backends)
    func traceContextRoundTrips(backend: TestDatabaseBackend) async throws {
        try await withRepositories(backend) { devices, deliveries in
            let phone = try await devices.register(
                ownerID: "ada", platform: .apns, token: "aa11", name: nil, now: Self.start)
            let laptop = try await devices.register(
                ownerID: "ada", platform: .direct, token: nil, name: nil, now: Self.start)
            var traced = send("n1", to: "ada")
            traced.traceParent = Self.sendTrace
            let recorded = try await deliveries.recordSend(traced, claim: nil)
            #expect(recorded.jobs.map(\.traceParent) == [Self.sendTrace, Self.sendTrace])
            #expect(recorded.jobs.map(\.sentAt) == [Self.start, Self.start])
            _ = try await deliveries.recordSend(send("n2", to: "ada", at: Self.start.addingTimeInterval(5)), claim: nil)

            let claimed = try await deliveries.claimDue(
                platform: .apns, owner: "w", now: Self.start.addingTimeInterval(6),
                leaseUntil: Self.start.addingTimeInterval(60), limit: 10)
            #expect(claimed.map(\.deviceID) == [phone.id, phone.id])
            #expect(claimed.map(\.traceParent) == [Self.sendTrace, nil])
            #expect(claimed.map(\.sentAt) == [Self.start, Self.start.addingTimeInterval(5)])

            let streamed = try await deliveries.pendingJobs(
                deviceID: laptop.id, after: 0, now: Self.start.addingTimeInterval(6), limit: 10)
            #expect(streamed.map(\.traceParent) == [Self.sendTrace, nil])
            #expect(streamed.map(\.sentAt) == [Self.start, Self.start.addingTimeInterval(5)])

            // push.status's traceId: the traced send's, nothing for the untraced one or an unknown id.
            #expect(try await deliveries.traceParent(notificationID: "n1") == Self.sendTrace)
            #expect(try await deliveries.traceParent(notificationID: "n2") == nil)
            #expect(try await deliveries.traceParent(notificationID: "unknown") == nil)
        }
    }

    @Test(
        "a stored trace context that is not a valid traceparent is ignored: the job is still read, without one",
        arguments: TestPostgres.backends)
    func malformedTraceContextIgnored(backend: TestDatabaseBackend) async throws {
        try await withDatabase(backend) { database in
            let devices = SQLDeviceRepository(database: database)
            let deliveries = SQLDeliveryRepository(database: database)
            let laptop = try await devices.register(
                ownerID: "ada", platform: .direct, token: nil, name: nil, now: Self.start)
            let malformed = [
                "garbage", "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
                String(repeating: "f", count: 10_000), "",
            ]
            for (index, value) in malformed.enumerated() {
                var traced = send("n\(index)", to: "ada")
                traced.traceParent = Self.sendTrace
                _ = try await deliveries.recordSend(traced, claim: nil)
                _ = try await database.execute(
                    "UPDATE delivery SET traceparent = ? WHERE notification_id = ?", [value, "n\(index)"])
            }
            let jobs = try await deliveries.pendingJobs(deviceID: laptop.id, after: 0, now: Self.start, limit: 10)
            #expect(jobs.count == malformed.count)
            #expect(jobs.allSatisfy { $0.traceParent == nil })
            for index in malformed.indices {
                #expect(try await deliveries.traceParent(notificationID: "n\(index)") == nil)
            }
        }
    }
}
