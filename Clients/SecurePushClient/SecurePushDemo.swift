import Foundation
import HTTP2Client
import Logging
import SharedModels

/// The whole secure push story against a running stack, step by step: a person signs up and registers a device,
/// a backend sends a secret, the device receives only the id and fetches the payload.
public struct SecurePushDemo: Sendable {
    /// Where the stack is.
    public var endpoints: SecurePushEndpoints
    /// A backend client with scope `push:send`.
    public var clientID: String
    public var clientSecret: String
    /// How long to wait for the id to arrive on the device (and for a second app to be served).
    public var timeout: Duration
    /// A second app of the deployment and a backend client bound to it: when set, the story goes on to show that
    /// each app's devices receive only that app's sends (see ``SecondApp``).
    public var secondApp: SecondApp?

    public init(
        endpoints: SecurePushEndpoints, clientID: String, clientSecret: String, timeout: Duration = .seconds(15),
        secondApp: SecondApp? = nil
    ) {
        self.endpoints = endpoints
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.timeout = timeout
        self.secondApp = secondApp
    }

    /// What the story produced.
    public struct Outcome: Sendable, Equatable {
        public var userId: String
        public var deviceId: String
        public var notificationId: String
        public var fetchedPayload: String
        /// What the second app's part produced, when it ran.
        public var secondApp: SecondAppOutcome?
    }

    /// Runs the story, reporting each step through `step`; throws if any step fails or the id does not arrive in time.
    @discardableResult
    public func run(logger: Logger, step: @escaping @Sendable (String) -> Void) async throws -> Outcome {
        let username = "demo-\(UUID().uuidString.prefix(8).lowercased())"
        let password = UUID().uuidString
        let secret = "Your one-time code is \(Int.random(in: 100_000...999_999))"
        let configuration = HTTP2ClientConfiguration(trustRootsPEMFile: endpoints.caFile)
        let device = try SecurePushDevice(endpoints: endpoints, configuration: configuration, logger: logger)
        let backend = try SecurePushBackend(
            authURL: endpoints.auth, dispatchURL: endpoints.dispatch, clientID: clientID, clientSecret: clientSecret,
            configuration: configuration, logger: logger)
        do {
            var outcome = try await story(
                device: device, backend: backend, username: username, password: password, secret: secret, step: step)
            if let secondApp {
                outcome.secondApp = try await secondAppStory(
                    secondApp, device: device, backend: backend, userId: outcome.userId,
                    defaultDeviceId: outcome.deviceId, step: step)
            }
            await device.shutdown()
            await backend.shutdown()
            return outcome
        } catch {
            await device.shutdown()
            await backend.shutdown()
            throw error
        }
    }

    private func story(
        device: SecurePushDevice, backend: SecurePushBackend, username: String, password: String, secret: String,
        step: @escaping @Sendable (String) -> Void
    ) async throws -> Outcome {
        let userId = try await device.createAccount(username: username, password: password)
        step("1. auth.register: created user '\(username)' (\(userId))")
        try await device.signIn(username: username, password: password)
        step("2. auth.login: signed in; the device holds an access token and a refresh token")
        let deviceId = try await device.register(device: .init(platform: .direct, name: "demo device"))
        step("3. devices.register: direct-channel device \(deviceId)")

        let ids = device.notifications(deviceId: deviceId)
        let result = try await backend.send(.init(recipientId: userId, payload: secret, ttlSeconds: 600))
        step(
            "4. push.send (backend '\(clientID)'): payload stored, notification \(result.notificationId), deliveries: "
                + result.deliveries.map { "\($0.deviceId) \($0.status)" }.joined(separator: ", "))

        let received = try await firstID(of: ids)
        step("5. device received id \(received) on its event stream (the payload never travelled there)")
        let fetched = try await device.fetch(received)
        step("6. store.get: the recipient fetched the payload: \"\(fetched.payload ?? "")\"")
        try await device.acknowledge(deviceId: deviceId, notificationId: received)
        let status = try await backend.status(notificationId: result.notificationId)
        step(
            "7. devices.ack + push.status: "
                + status.deliveries.map { "\($0.deviceId) \($0.status)" }.joined(separator: ", "))
        guard received == result.notificationId, fetched.payload == secret else {
            throw DemoError(description: "the device received \(received), expected \(result.notificationId)")
        }
        return Outcome(
            userId: userId, deviceId: deviceId, notificationId: received, fetchedPayload: fetched.payload ?? "")
    }

    func firstID(of ids: AsyncThrowingStream<String, any Error>) async throws -> String {
        try await withThrowingTaskGroup(of: String?.self) { group in
            group.addTask {
                for try await id in ids { return id }
                return nil
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let id = first else {
                throw DemoError(description: "no notification id arrived within \(timeout)")
            }
            return id
        }
    }

    /// The story failed at a step that is not an RPC error.
    public struct DemoError: Error, CustomStringConvertible {
        public var description: String
    }
}
