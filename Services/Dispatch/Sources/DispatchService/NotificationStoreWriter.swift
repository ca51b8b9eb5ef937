import Foundation
import Logging
import ServiceCore
import SharedModels

/// Calls `store.put` on the notification store with push-dispatch's own client token (scope `store:write`).
public struct NotificationStoreWriter: Sendable {
    let store: RPCClient
    let tokens: ClientCredentialsTokenProvider
    /// Coalesces concurrent ``put(_:)`` calls into `store.putMany`.
    private let batcher: StorePutBatcher

    /// - Parameters:
    ///   - store: a client to the notification store; its `peerName` names it in `-32050` errors.
    ///   - tokens: push-dispatch's client token from `auth.clientToken`.
    public init(store: RPCClient, tokens: ClientCredentialsTokenProvider) {
        self.store = store
        self.tokens = tokens
        batcher = StorePutBatcher(
            single: { [store, tokens] item in
                try await Self.call(Store.Put.self, item, store: store, tokens: tokens)
            },
            many: { [store, tokens] items in
                try await Self.putManyAnswer(items, store: store, tokens: tokens)
            },
            mapFailure: { [store] error in Self.callerFailure(error, method: Store.Put.name, store: store) })
    }

    /// Stores the payload. Every failure — the store or auth unreachable, or refusing — is a `-32050`.
    /// A token the store refuses (`-32001`, e.g. after auth rotated its key) is fetched again and the call retried once.
    ///
    /// Calls made while another is in flight are sent together as one `store.putMany` (``StorePutBatcher``); each
    /// caller still gets its own notification, or its own item's refusal.
    public func put(_ params: Store.Put.Params) async throws -> Store.Put.Result {
        try await batcher.put(params)
    }

    /// Puts waiting for a batch (for tests).
    var queuedPuts: Int { batcher.waitingCount }

    /// Stores many payloads in one transaction (`store.putMany`, at most ``Store/PutMany/maxItems``); failures as for
    /// ``put(_:)``. The results are in the items' order.
    public func putMany(_ items: [Store.Put.Params]) async throws -> [Store.Put.Result] {
        do {
            return try await Self.putManyAnswer(items, store: store, tokens: tokens)
        } catch {
            throw Self.callerFailure(error, method: Store.PutMany.name, store: store)
        }
    }

    /// `store.putMany`'s results, one per item; throws the store's own ``RPCError`` when it refused.
    private static func putManyAnswer(
        _ items: [Store.Put.Params], store: RPCClient, tokens: ClientCredentialsTokenProvider
    ) async throws -> [Store.Put.Result] {
        let results = try await answer(Store.PutMany.self, .init(items: items), store: store, tokens: tokens).results
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
        try await Self.call(method, params, store: store, tokens: tokens)
    }

    /// The call, its failures as callers see them (``callerFailure(_:method:store:)``).
    private static func call<M: RPCMethod>(
        _ method: M.Type, _ params: M.Params, store: RPCClient, tokens: ClientCredentialsTokenProvider
    ) async throws -> M.Result {
        do {
            return try await answer(method, params, store: store, tokens: tokens)
        } catch {
            throw callerFailure(error, method: M.name, store: store)
        }
    }

    /// The store's answer; its refusals as the store sent them. A refused token is fetched again, once.
    private static func answer<M: RPCMethod>(
        _ method: M.Type, _ params: M.Params, store: RPCClient, tokens: ClientCredentialsTokenProvider
    ) async throws -> M.Result {
        do {
            return try await store.call(M.self, params, token: try await tokens.token())
        } catch let error as RPCError where error.code == RPCErrorCode.unauthenticated {
            await tokens.invalidate()
            return try await store.call(M.self, params, token: try await tokens.token())
        }
    }

    /// What a caller sees of a failed call: `-32050` naming the store (or auth, when our token could not be had).
    private static func callerFailure(_ error: any Error, method: String, store: RPCClient) -> any Error {
        switch error {
        case let error as RPCError where error.code == RPCErrorCode.unavailable:
            // Already names the dependency that failed: the store, or auth when our token could not be had.
            return error
        case let error as RPCError:
            // The store's own message stays in our log (`push.send.store_failed`): the caller sees only the code.
            return DispatchError.dependencyUnavailable(store.peerName, "\(method) failed (\(error.code))")
        case let error as DispatchError:
            return error
        default:
            return DispatchError.dependencyUnavailable(store.peerName, "\(method) failed")
        }
    }
}
