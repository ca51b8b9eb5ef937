import Foundation

/// Turns payloads into what is written to disk and back: the seam for encryption at rest.
///
/// Each stored row records the `scheme` that sealed it, so a later sealer (e.g. AES-GCM with key rotation)
/// can read old rows or refuse them clearly instead of returning garbage.
public protocol PayloadSealer: Sendable {
    /// A short name stored with each payload, e.g. `"identity"`.
    var scheme: String { get }
    /// The bytes to store for `payload`.
    func seal(_ payload: Data) throws -> Data
    /// The payload from stored bytes sealed with `scheme`.
    func open(_ sealed: Data, scheme: String) throws -> Data
    /// Seals `payload` for the row of `notificationID`, bound to it where the scheme allows (a copy moved to another
    /// row does not open); returns the bytes and the scheme to store together.
    func seal(_ payload: Data, notificationID: String) throws -> SealedPayload
    /// The payload of the row of `notificationID` from stored bytes sealed with `scheme`.
    func open(_ sealed: Data, scheme: String, notificationID: String) throws -> Data
}

/// What a ``PayloadSealer`` stores for one payload: the bytes and the scheme that opens them.
public struct SealedPayload: Sendable, Hashable {
    /// The bytes to store.
    public var bytes: Data
    /// The scheme stored beside them (`payload_scheme`).
    public var scheme: String

    public init(bytes: Data, scheme: String) {
        self.bytes = bytes
        self.scheme = scheme
    }
}

extension PayloadSealer {
    /// Sealers that bind nothing to the row seal as ``seal(_:)`` does.
    public func seal(_ payload: Data, notificationID: String) throws -> SealedPayload {
        SealedPayload(bytes: try seal(payload), scheme: scheme)
    }

    /// Sealers that bind nothing to the row open as ``open(_:scheme:)`` does.
    public func open(_ sealed: Data, scheme: String, notificationID: String) throws -> Data {
        try open(sealed, scheme: scheme)
    }
}

/// Stores payloads as given: the scheme of rows written before encryption at rest, still read by
/// ``AESGCMPayloadSealer`` and re-encrypted by `securepush store-keys rotate`.
public struct IdentityPayloadSealer: PayloadSealer {
    public init() {}

    public var scheme: String { "identity" }

    public func seal(_ payload: Data) throws -> Data { payload }

    public func open(_ sealed: Data, scheme: String) throws -> Data {
        guard scheme == self.scheme else { throw StoreError.corruptPayload }
        return sealed
    }
}
