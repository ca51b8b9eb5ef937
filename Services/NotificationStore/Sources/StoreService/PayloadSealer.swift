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
}

/// Stores payloads as given (this behaviour: encryption at rest comes later).
public struct IdentityPayloadSealer: PayloadSealer {
    public init() {}

    public var scheme: String { "identity" }

    public func seal(_ payload: Data) throws -> Data { payload }

    public func open(_ sealed: Data, scheme: String) throws -> Data {
        guard scheme == self.scheme else { throw StoreError.corruptPayload }
        return sealed
    }
}
