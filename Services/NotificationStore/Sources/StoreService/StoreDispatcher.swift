import ServiceCore
import SharedModels

/// Registers every `store.*` method (exactly `MethodCatalog.store`) on a dispatcher.
///
/// Each handler authenticates first, then checks the scope, then hands validated params to the domain,
/// so callers without the right token learn nothing about the data.
/// - Parameters:
///   - store: the domain logic.
///   - verifier: verifies bearer tokens locally with auth's keys.
///   - maxBatchLength: most calls a batch may hold.
///   - metrics: counts every `store.get` by outcome, refused ones included.
public func makeStoreDispatcher(
    store: NotificationStore,
    verifier: AccessTokenVerifier,
    maxBatchLength: Int = 100,
    metrics: StoreMetrics = .disabled
) -> RPCDispatcher {
    var dispatcher = RPCDispatcher(maxBatchLength: maxBatchLength)

    dispatcher.register(Store.Put.self) { params, context in
        let principal = try await context.authenticate(with: verifier)
        try principal.require(scope: Scope.storeWrite)
        let stored = try await store.put(
            recipientID: params.recipientId, payload: params.payload, ttlSeconds: params.ttlSeconds)
        context.logger.debug(
            "store.put.stored",
            metadata: ["store.notification.id": "\(stored.id)", "store.client.id": "\(principal.subject)"]
        )
        return Store.Put.Result(notificationId: stored.id, expiresAt: stored.expiresAt)
    }

    dispatcher.register(Store.Get.self) { params, context in
        let record: NotificationRecord
        do {
            let userID = try await context.authenticate(with: verifier).requireUser()
            record = try await store.get(id: params.notificationId, recipientID: userID)
            metrics.fetchEnded(nil)
        } catch {
            metrics.fetchEnded(error)
            throw error
        }
        let metadata = record.metadata
        return Store.StoredNotification(
            notificationId: metadata.id,
            payload: record.payload,
            createdAt: metadata.createdAt,
            expiresAt: metadata.expiresAt,
            readAt: metadata.readAt
        )
    }

    dispatcher.register(Store.List.self) { params, context in
        let userID = try await context.authenticate(with: verifier).requireUser()
        let page = try await store.list(
            recipientID: userID, unreadOnly: params.unreadOnly ?? false, limit: params.limit, cursor: params.cursor)
        return Store.List.Result(
            items: page.items.map {
                Store.NotificationSummary(
                    notificationId: $0.id, createdAt: $0.createdAt, expiresAt: $0.expiresAt, readAt: $0.readAt)
            },
            nextCursor: page.next?.encoded
        )
    }

    dispatcher.register(Store.MarkRead.self) { params, context in
        let userID = try await context.authenticate(with: verifier).requireUser()
        return Store.MarkRead.Result(readAt: try await store.markRead(id: params.notificationId, recipientID: userID))
    }

    dispatcher.register(Store.Delete.self) { params, context in
        let userID = try await context.authenticate(with: verifier).requireUser()
        try await store.delete(id: params.notificationId, recipientID: userID)
        return Empty()
    }

    return dispatcher
}
