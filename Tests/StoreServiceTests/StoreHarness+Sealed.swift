import Crypto
import Foundation
import SealedPush
import ServiceCore
import SharedModels
import StoreService
import TestSupport

/// A sealed device in a store test: an id and a key pair.
struct TestDevice: Sendable {
    let id: String
    let key = P256.KeyAgreement.PrivateKey()

    /// A new device, or a new key for the device `id` (re-registered with another key).
    init(id: String = UUID().uuidString.lowercased()) { self.id = id }

    var recipientKey: Store.RecipientKey {
        Store.RecipientKey(deviceId: id, publicKey: DevicePublicKey(key.publicKey).base64URL)
    }

    /// A proof for `notificationID` made at `now`, signed with this device's key (or `signer`).
    func proof(for notificationID: String, at now: Date, signer: P256.KeyAgreement.PrivateKey? = nil) throws -> String {
        try DeviceProof.make(
            notificationID: notificationID, deviceID: id, issuedAt: now,
            key: try P256.Signing.PrivateKey(rawRepresentation: (signer ?? key).rawRepresentation))
    }

    /// The payload in a sealed copy fetched for this device.
    func open(_ notification: Store.StoredNotification) throws -> String {
        guard let sealed = notification.sealed else { throw SealedPayloadError.malformedCopy }
        return String(
            decoding: try SealedPayloadCipher.open(
                sealed, notificationID: notification.notificationId, privateKey: key),
            as: UTF8.self)
    }
}

extension StoreHarness {
    /// Stores a notification sealed to `devices`, as push-dispatch would.
    @discardableResult
    func put(
        to recipientID: String, payload: String = "secret", sealedTo devices: [TestDevice], sealedOnly: Bool = true,
        readOnce: Bool = false
    ) async throws -> Store.Put.Result {
        try await client.call(
            Store.Put.self,
            .init(
                recipientId: recipientID, payload: payload, recipientKeys: devices.map(\.recipientKey),
                sealedOnly: sealedOnly ? true : nil, readOnce: readOnce ? true : nil),
            token: try await signer.writerToken())
    }

    /// Fetches as `userID`'s device `deviceID`, with the user's token.
    func get(_ notificationID: String, as userID: String, device deviceID: String?) async throws
        -> Store.StoredNotification
    {
        try await client.call(
            Store.Get.self, .init(notificationId: notificationID, deviceId: deviceID),
            token: try await signer.userToken(userID))
    }

    /// Fetches with a `SecurePush-Device-Proof`, and with `userID`'s token beside it when given.
    /// `address` is the client address the server saw (none: an in-process call).
    func get(
        _ notificationID: String, as userID: String? = nil, device deviceID: String?, proof: String,
        from address: String? = nil
    ) async throws -> Store.StoredNotification {
        let dispatcher = components.dispatcher
        let proving = RPCClient(
            transport: InProcessTransport(
                dispatcher: { dispatcher },
                context: {
                    RPCRequestContext(bearerToken: $0, logger: .quiet, clientAddress: address, deviceProof: proof)
                }),
            peerName: "notification-store")
        var token: String?
        if let userID { token = try await signer.userToken(userID) }
        return try await proving.call(
            Store.Get.self, .init(notificationId: notificationID, deviceId: deviceID), token: token)
    }
}
