import Foundation
import Logging
import ServiceCore
import SharedModels

/// Calls `store.put` on the notification store with push-dispatch's own client token (scope `store:write`).
public struct NotificationStoreWriter: Sendable {
    let store: RPCClient
    let tokens: ClientCredentialsTokenProvider

    /// - Parameters:
    ///   - store: a client to the notification store; its `peerName` names it in `-32050` errors.
    ///   - tokens: push-dispatch's client token from `auth.clientToken`.
    public init(store: RPCClient, tokens: ClientCredentialsTokenProvider) {
        self.store = store
        self.tokens = tokens
    }

    /// Stores the payload. Every failure — the store or auth unreachable, or refusing — is a `-32050`.
    /// A token the store refuses (`-32001`, e.g. after auth rotated its key) is fetched again and the call retried once.
    public func put(_ params: Store.Put.Params) async throws -> Store.Put.Result {
        try await call(Store.Put.self, params)
    }

    /// Stores many payloads in one transaction (`store.putMany`, at most ``Store/PutMany/maxItems``); failures as for
    /// ``put(_:)``. The results are in the items' order.
    public func putMany(_ items: [Store.Put.Params]) async throws -> [Store.Put.Result] {
        let results = try await call(Store.PutMany.self, .init(items: items)).results
        guard results.count == items.count else {
            throw DispatchError.dependencyUnavailable(
                store.peerName, "store.putMany answered \(results.count) results for \(items.count) items")
        }
        return results
    }

    /// Shows held notifications now that they are due (`store.publish`); failures as for ``put(_:)``.
    public func publish(_ items: [Store.Publish.Item]) async throws -> Store.Publish.Result {
        try await call(Store.Publish.self, .init(items: items))
    }

    /// Deletes held notifications of cancelled sends (`store.discard`); failures as for ``put(_:)``.
    public func discard(_ notificationIDs: [String]) async throws -> Int {
        try await call(Store.Discard.self, .init(notificationIds: notificationIDs)).discarded
    }

    /// Which devices fetched the notification, and when first (`store.receipts`); failures as for ``put(_:)``.
    public func receipts(notificationID: String) async throws -> [Store.Receipt] {
        try await call(Store.Receipts.self, .init(notificationId: notificationID)).receipts
    }

    /// The receipts the store recorded at or after `after` (ms since 1970), oldest first (`store.receiptsSince`).
    public func receiptsSince(after: Int64, limit: Int) async throws -> Store.ReceiptsSince.Result {
        try await call(Store.ReceiptsSince.self, .init(after: after, limit: limit))
    }

    /// Tells the store to revoke devices (`store.revokeDevices`); failures as for ``put(_:)``.
    public func revokeDevices(_ params: Store.RevokeDevices.Params) async throws -> Store.RevokeDevices.Result {
        try await call(Store.RevokeDevices.self, params)
    }

    private func call<M: RPCMethod>(_ method: M.Type, _ params: M.Params) async throws -> M.Result {
        do {
            do {
                return try await store.call(M.self, params, token: try await tokens.token())
            } catch let error as RPCError where error.code == RPCErrorCode.unauthenticated {
                await tokens.invalidate()
                return try await store.call(M.self, params, token: try await tokens.token())
            }
        } catch let error as RPCError where error.code == RPCErrorCode.unavailable {
            // Already names the dependency that failed: the store, or auth when our token could not be had.
            throw error
        } catch let error as RPCError {
            // The store's own message stays in our log (`push.send.store_failed`): the caller sees only the code.
            throw DispatchError.dependencyUnavailable(store.peerName, "\(M.name) failed (\(error.code))")
        } catch {
            throw DispatchError.dependencyUnavailable(store.peerName, "\(M.name) failed")
        }
    }
}
