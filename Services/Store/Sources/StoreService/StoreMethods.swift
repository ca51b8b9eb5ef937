import ServiceCore
import SharedModels

/// notification-store's JSON-RPC methods (exactly `MethodCatalog.store`), each registered with the access it
/// requires and mapped onto ``NotificationStore``, so callers without the right token learn nothing about the data.
public enum StoreMethods {
    /// The dispatcher serving every `store.*` method.
    /// - Parameters:
    ///   - store: the domain logic.
    ///   - verifier: verifies bearer tokens locally with auth's keys.
    ///   - maxBatchLength: most calls a batch may hold.
    ///   - metrics: counts every `store.get` by outcome, refused ones included.
    ///   - proofLimiter: bounds fetches with a device proof per client address (`nil`: no bound).
    public static func dispatcher(
        store: NotificationStore,
        verifier: AccessTokenVerifier,
        maxBatchLength: Int = 100,
        metrics: StoreMetrics = .disabled,
        proofLimiter: ProofRateLimiter? = nil
    ) -> RPCDispatcher {
        var methods = MethodRegistry(verifier: verifier, maxBatchLength: maxBatchLength)

        methods.register(Store.Put.self, requires: .scope(Scope.storeWrite)) { params, principal, context in
            let stored = try await store.put(
                recipientID: params.recipientId, payload: params.payload, ttlSeconds: params.ttlSeconds,
                recipientKeys: params.recipientKeys ?? [], sealedOnly: params.sealedOnly ?? false,
                readOnce: params.readOnce ?? false, idempotencyKey: params.idempotencyKey, writer: principal.subject,
                sendAt: params.sendAt)
            context.logger.debug(
                "store.put.stored",
                metadata: [
                    LogMetadataKey.notificationID: "\(stored.id)", LogMetadataKey.clientID: "\(principal.subject)",
                ]
            )
            return Store.Put.Result(
                notificationId: stored.id, expiresAt: stored.expiresAt, held: stored.held ? true : nil)
        }

        methods.register(Store.PutMany.self, requires: .scope(Scope.storeWrite)) { params, principal, context in
            let stored = try await store.putMany(params.items, writer: principal.subject)
            context.logger.debug(
                "store.putMany.stored",
                metadata: [LogMetadataKey.clientID: "\(principal.subject)", "store.items": "\(stored.count)"])
            return Store.PutMany.Result(
                results: stored.map {
                    Store.Put.Result(notificationId: $0.id, expiresAt: $0.expiresAt, held: $0.held ? true : nil)
                })
        }

        methods.register(Store.Publish.self, requires: .scope(Scope.storeWrite)) { params, _, _ in
            try await store.publish(params.items)
        }

        methods.register(Store.Discard.self, requires: .scope(Scope.storeWrite)) { params, _, _ in
            Store.Discard.Result(discarded: try await store.discard(params.notificationIds))
        }

        // Admits its callers itself: a device's `SecurePush-Device-Proof` (with or without the user's token), or a
        // user's bearer token (see ``NotificationStore/fetch(id:deviceID:proof:tokenSubject:logger:)``); refused
        // fetches are counted by outcome too.
        methods.registerAdmittingItself(Store.Get.self) { params, context in
            do {
                let notification: Store.StoredNotification
                if let proof = context.deviceProof {
                    // Counted before any work on the proof, refused or not.
                    try await proofLimiter?.admit(address: context.clientAddress)
                    // A device's key: the proof is the whole authentication; a token beside it must be the same
                    // recipient's.
                    var subject: String?
                    if context.bearerToken != nil {
                        let principal = try await context.authenticate(with: verifier)
                        try MethodAccess.user.check(principal)
                        subject = principal.subject
                    }
                    notification = try await store.fetch(
                        id: params.notificationId, deviceID: params.deviceId, proof: proof, tokenSubject: subject,
                        logger: context.logger)
                } else {
                    let principal = try await context.authenticate(with: verifier)
                    try MethodAccess.user.check(principal)
                    notification = try await store.fetch(
                        id: params.notificationId, recipientID: principal.subject, deviceID: params.deviceId)
                }
                metrics.fetchEnded(nil)
                return notification
            } catch {
                metrics.fetchEnded(error)
                throw error
            }
        }

        // The common fetch answers on the server's event loop, with no task: a token verified before, a plain
        // notification read on SQLite. Any other caller or notification takes the handler above.
        methods.registerImmediateAdmittingItself(Store.Get.self) { params, context in
            // A device proof is checked (and spent) by the handler above, token or not.
            guard context.deviceProof == nil, let principal = verifier.cachedPrincipal(for: context.bearerToken)
            else { return nil }
            do {
                try MethodAccess.user.check(principal)
                guard
                    let notification = try store.fetchImmediately(
                        id: params.notificationId, recipientID: principal.subject, deviceID: params.deviceId)
                else { return nil }
                metrics.fetchEnded(nil)
                return notification
            } catch {
                metrics.fetchEnded(error)
                throw error
            }
        }

        methods.register(Store.Receipts.self, requires: .scope(Scope.storeWrite)) { params, _, _ in
            Store.Receipts.Result(receipts: try await store.receipts(id: params.notificationId))
        }

        methods.register(Store.ReceiptsSince.self, requires: .scope(Scope.storeWrite)) { params, _, _ in
            try await store.receiptsSince(after: params.after, limit: params.limit)
        }

        methods.register(Store.RevokeDevices.self, requires: .scope(Scope.storeWrite)) { params, _, _ in
            let deleted = try await store.revokeDevices(params.deviceIds, revocationID: params.revocationId)
            return Store.RevokeDevices.Result(deviceIds: params.deviceIds.count, sealedCopiesDeleted: deleted)
        }

        methods.register(Store.List.self, requires: .user) { params, user, _ in
            let page = try await store.list(
                recipientID: user.subject, unreadOnly: params.unreadOnly ?? false, limit: params.limit,
                cursor: params.cursor)
            return Store.List.Result(
                items: page.items.map {
                    Store.NotificationSummary(
                        notificationId: $0.id, createdAt: $0.createdAt, expiresAt: $0.expiresAt, readAt: $0.readAt,
                        gone: $0.goneAt == nil ? nil : true)
                },
                nextCursor: page.next?.encoded
            )
        }

        methods.register(Store.MarkRead.self, requires: .user) { params, user, _ in
            Store.MarkRead.Result(
                readAt: try await store.markRead(id: params.notificationId, recipientID: user.subject))
        }

        methods.register(Store.Delete.self, requires: .user) { params, user, _ in
            try await store.delete(id: params.notificationId, recipientID: user.subject)
            return Empty()
        }

        return methods.dispatcher
    }
}
