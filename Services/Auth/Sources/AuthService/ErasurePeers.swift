import Foundation
import ServiceCore
import SharedModels

/// The services auth erases a user in, after its own part: push-dispatch first (it knows the user's devices), then
/// the store.
public protocol ErasurePeers: Sendable {
    /// `devices.eraseUser` with `token` (scope `users:erase`).
    func eraseInDispatch(_ params: Devices.EraseUser.Params, token: String) async throws -> Devices.EraseUser.Result
    /// `store.eraseUser` with `token` (scope `users:erase`).
    func eraseInStore(_ params: Store.EraseUser.Params, token: String) async throws -> Store.EraseUser.Result
}

/// The peers over JSON-RPC, each client made at first use (``LazyPeerClient``).
public struct RPCErasurePeers: ErasurePeers {
    let dispatch: @Sendable () throws -> RPCClient
    let store: @Sendable () throws -> RPCClient

    public init(dispatch: @escaping @Sendable () throws -> RPCClient, store: @escaping @Sendable () throws -> RPCClient)
    {
        self.dispatch = dispatch
        self.store = store
    }

    public func eraseInDispatch(_ params: Devices.EraseUser.Params, token: String) async throws
        -> Devices.EraseUser.Result
    {
        try await dispatch().call(Devices.EraseUser.self, params, token: token)
    }

    public func eraseInStore(_ params: Store.EraseUser.Params, token: String) async throws -> Store.EraseUser.Result {
        try await store().call(Store.EraseUser.self, params, token: token)
    }
}
