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
    ///   - audit: where stores, fetches, receipts and deletions are recorded (`nil`: nowhere).
    public static func dispatcher(
        store: NotificationStore,
        verifier: AccessTokenVerifier,
        maxBatchLength: Int = 100,
        metrics: StoreMetrics = .disabled,
        proofLimiter: ProofRateLimiter? = nil,
        audit: AuditTrail? = nil
    ) -> RPCDispatcher {
        var methods = MethodRegistry(verifier: verifier, maxBatchLength: maxBatchLength)
        /// A fetch with a user's token, or its refusal.
        @Sendable func recordFetch(_ params: Store.Get.Params, user: String?, address: String?, error: (any Error)?) {
            var fields: AuditFields = [
                "by": .text("token"), "notification": .text(params.notificationId), "address": .address(address),
            ]
            if let user { fields["user"] = .user(user) }
            if let device = params.deviceId { fields["device"] = .device(device, owner: user) }
            if let error {
                fields["reason"] = .text((error as? any RPCErrorConvertible)?.rpcError.message ?? "internal error")
            }
            audit?.record(error == nil ? "store.fetch" : "store.fetch.refused", fields)
        }
        /// A notification stored for `params.recipientId` by `writer`.
        @Sendable func recordPut(_ params: Store.Put.Params, id: String, writer: String, held: Bool) {
            audit?.record(
                "store.put",
                [
                    "client": .text(writer), "recipient": .user(params.recipientId), "notification": .text(id),
                    "sealedCopies": .integer(Int64(params.recipientKeys?.count ?? 0)),
                    "sealedOnly": .flag(params.sealedOnly ?? false), "readOnce": .flag(params.readOnce ?? false),
                    "held": .flag(held),
                ])
        }

        methods.register(Store.Put.self, requires: .scope(Scope.storeWrite)) { params, principal, context in
            let stored = try await store.put(
                recipientID: params.recipientId, payload: params.payload, ttlSeconds: params.ttlSeconds,
                recipientKeys: params.recipientKeys ?? [], sealedOnly: params.sealedOnly ?? false,
                readOnce: params.readOnce ?? false, idempotencyKey: params.idempotencyKey, writer: principal.subject,
                sendAt: params.sendAt)
            recordPut(params, id: stored.id, writer: principal.subject, held: stored.held)
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
            for (item, result) in zip(params.items, stored) {
                recordPut(item, id: result.id, writer: principal.subject, held: result.held)
            }
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

        methods.register(Store.Discard.self, requires: .scope(Scope.storeWrite)) { params, client, _ in
            let discarded = try await store.discard(params.notificationIds)
            audit?.record(
                "store.discard",
                ["client": .text(client.subject), "notifications": .texts(params.notificationIds)])
            return Store.Discard.Result(discarded: discarded)
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
                    // Recorded (fetched or refused) by the store, which knows the device's owner.
                    notification = try await store.fetch(
                        id: params.notificationId, deviceID: params.deviceId, proof: proof, tokenSubject: subject,
                        address: context.clientAddress, logger: context.logger)
                } else {
                    var user: String?
                    do {
                        let principal = try await context.authenticate(with: verifier)
                        try MethodAccess.user.check(principal)
                        user = principal.subject
                        notification = try await store.fetch(
                            id: params.notificationId, recipientID: principal.subject, deviceID: params.deviceId)
                    } catch {
                        recordFetch(params, user: user, address: context.clientAddress, error: error)
                        throw error
                    }
                    recordFetch(params, user: user, address: context.clientAddress, error: nil)
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
                recordFetch(params, user: principal.subject, address: context.clientAddress, error: nil)
                return notification
            } catch {
                metrics.fetchEnded(error)
                recordFetch(params, user: principal.subject, address: context.clientAddress, error: error)
                throw error
            }
        }

        methods.register(Store.Receipts.self, requires: .scope(Scope.storeWrite)) { params, _, _ in
            Store.Receipts.Result(receipts: try await store.receipts(id: params.notificationId))
        }

        methods.register(Store.ReceiptsSince.self, requires: .scope(Scope.storeWrite)) { params, _, _ in
            try await store.receiptsSince(after: params.after, limit: params.limit)
        }

        // Recorded by the store (`store.devices.revoked`).
        methods.register(Store.RevokeDevices.self, requires: .scope(Scope.storeWrite)) { params, _, _ in
            let deleted = try await store.revokeDevices(params.deviceIds, revocationID: params.revocationId)
            return Store.RevokeDevices.Result(deviceIds: params.deviceIds.count, sealedCopiesDeleted: deleted)
        }

        // Only auth's own erasure tokens carry `users:erase` (auth never gives it to a client).
        methods.register(Store.EraseUser.self, requires: .scope(Scope.usersErase)) { params, _, _ in
            Store.EraseUser.Result(erased: try await store.eraseUser(params.userId, deviceIDs: params.deviceIds ?? []))
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

        methods.register(Store.MarkRead.self, requires: .user) { params, user, context in
            let readAt = try await store.markRead(id: params.notificationId, recipientID: user.subject)
            audit?.record(
                "store.receipt",
                [
                    "user": .user(user.subject), "notification": .text(params.notificationId),
                    "address": .address(context.clientAddress),
                ])
            return Store.MarkRead.Result(readAt: readAt)
        }

        methods.register(Store.Delete.self, requires: .user) { params, user, context in
            try await store.delete(id: params.notificationId, recipientID: user.subject)
            audit?.record(
                "store.delete",
                [
                    "user": .user(user.subject), "notification": .text(params.notificationId),
                    "address": .address(context.clientAddress),
                ])
            return Empty()
        }

        return methods.dispatcher
    }
}
