import SharedModels

extension SecurePushDevice {
    /// The field of a platform push that carries a secure notification's id.
    public static let notificationIdField = "secureId"
    /// The field of a platform push that carries a device-verification challenge.
    public static let challengeField = "securepushChallenge"
    /// The field of a platform push that names the pending device a challenge is for.
    public static let challengeDeviceIdField = "securepushDeviceId"

    /// Handles the data of a platform push (APNs userInfo, FCM data, a WNS raw body decoded as JSON): a secure
    /// notification's id is returned for fetching; a device-verification challenge is answered at once, so a device
    /// that came to this user from someone else's account proves it holds the token and moves to this user.
    ///
    /// A challenge names its pending device (`securepushDeviceId`; else this client's last pending registration is
    /// assumed). When that pending device is not this user's (someone else registered this device's token, and
    /// push-dispatch answers `-32004`), the push is ignored (``ReceivedPush/other``): answering costs the other
    /// registration nothing and this user nothing.
    /// - Throws: ``SecurePushClientError/noPendingDevice`` for a challenge that names no device when this client
    ///   registered no pending device; push-dispatch's `-32602` naming `challenge` when it is wrong or late.
    public func receive(push data: [String: String]) async throws -> ReceivedPush {
        if let challenge = data[Self.challengeField] {
            let named = data[Self.challengeDeviceIdField]
            guard let deviceId = named ?? pendingDeviceId else { throw SecurePushClientError.noPendingDevice }
            do {
                return .verified(deviceId: try await verify(deviceId: deviceId, challenge: challenge))
            } catch let error as RPCError where error.code == RPCErrorCode.notFound && named != nil {
                return .other
            }
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
