import SharedModels

extension SecurePushDevice {
    /// The field of a platform push that carries a secure notification's id.
    public static let notificationIdField = "secureId"
    /// The field of a platform push that carries a device-verification challenge.
    public static let challengeField = "securepushChallenge"

    /// Handles the data of a platform push (APNs userInfo, FCM data, a WNS raw body decoded as JSON): a secure
    /// notification's id is returned for fetching; a device-verification challenge is answered at once for this
    /// client's pending registration, so a device that moved to a new user from someone else's account proves it
    /// holds the token.
    /// - Throws: ``SecurePushClientError/noPendingDevice`` for a challenge when this client registered no pending
    ///   device; push-dispatch's `-32602` naming `challenge` when it is wrong or late.
    public func receive(push data: [String: String]) async throws -> ReceivedPush {
        if let challenge = data[Self.challengeField] {
            guard let deviceId = pendingDeviceId else { throw SecurePushClientError.noPendingDevice }
            return .verified(deviceId: try await verify(deviceId: deviceId, challenge: challenge))
        }
        if let id = data[Self.notificationIdField] {
            return .notification(id: id, traceparent: data["traceparent"])
        }
        return .other
    }

    /// Answers the challenge pushed to a pending device (`devices.verify`); returns the device id, now registered to
    /// the signed-in user.
    public func verify(deviceId: String, challenge: String) async throws -> String {
        let result = try await authorized { token in
            try await self.dispatch.call(
                Devices.Verify.self, .init(deviceId: deviceId, challenge: challenge), token: token)
        }
        if pendingDeviceId == deviceId { pendingDeviceId = nil }
        return result.deviceId
    }
}
