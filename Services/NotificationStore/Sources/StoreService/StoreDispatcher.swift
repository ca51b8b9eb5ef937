import ServiceCore
import SharedModels

/// Registers every `store.*` method (exactly `MethodCatalog.store`) on a dispatcher.
///
/// Each handler authenticates first, then checks the scope, then hands validated params to the domain,
/// so callers without the right token learn nothing about the data. `store.get` without a token authenticates by its
/// `SecurePush-Device-Proof` instead (see ``NotificationStore/fetch(id:deviceID:proof:logger:)``).
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
            recipientID: params.recipientId, payload: params.payload, ttlSeconds: params.ttlSeconds,
            recipientKeys: params.recipientKeys ?? [], sealedOnly: params.sealedOnly ?? false,
            readOnce: params.readOnce ?? false)
        context.logger.debug(
            "store.put.stored",
            metadata: ["store.notification.id": "\(stored.id)", "store.client.id": "\(principal.subject)"]
        )
        return Store.Put.Result(notificationId: stored.id, expiresAt: stored.expiresAt)
    }

    dispatcher.register(Store.Get.self) { params, context in
        do {
            let notification: Store.StoredNotification
            if context.bearerToken == nil, let proof = context.deviceProof {
                // A device with nothing but its key: the proof is the whole authentication.
                notification = try await store.fetch(
                    id: params.notificationId, deviceID: params.deviceId, proof: proof, logger: context.logger)
            } else {
                let userID = try await context.authenticate(with: verifier).requireUser()
                notification = try await store.fetch(
                    id: params.notificationId, recipientID: userID, deviceID: params.deviceId)
            }
            metrics.fetchEnded(nil)
            return notification
        } catch {
            metrics.fetchEnded(error)
            throw error
        }
    }

    dispatcher.register(Store.Receipts.self) { params, context in
        let principal = try await context.authenticate(with: verifier)
        try principal.require(scope: Scope.storeWrite)
        return Store.Receipts.Result(receipts: try await store.receipts(id: params.notificationId))
    }

    dispatcher.register(Store.List.self) { params, context in
        let userID = try await context.authenticate(with: verifier).requireUser()
        let page = try await store.list(
            recipientID: userID, unreadOnly: params.unreadOnly ?? false, limit: params.limit, cursor: params.cursor)
        return Store.List.Result(
            items: page.items.map {
                Store.NotificationSummary(
                    notificationId: $0.id, createdAt: $0.createdAt, expiresAt: $0.expiresAt, readAt: $0.readAt,
                    gone: $0.goneAt == nil ? nil : true)
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
