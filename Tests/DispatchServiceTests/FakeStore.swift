import Foundation
import ServiceCore
import SharedModels
import Synchronization
import TestSupport
import Testing

/// A stand-in for the notification store serving `store.put` (and `store.receipts`, `store.revokeDevices`): records every call (params and token), can be
/// unreachable (the transport throws `-32050`) or failing (it answers `-32603`), can refuse tokens (`-32001`),
/// and can hold calls at a gate. Any other store method fails the test loudly.
final class FakeStore: Sendable {
    /// How the fake answers.
    enum Mode: Sendable {
        case up
        /// Calls never reach it: the transport throws `-32050`, as for a refused connection.
        case unreachable
        /// It answers every call with an internal error.
        case failing
    }

    /// One `store.put` that reached the store.
    struct Call: Sendable {
        var params: Store.Put.Params
        var token: String?
        var notificationID: String?
    }

    private struct State {
        var mode = Mode.up
        var tokensToRefuse = 0
        var calls: [Call] = []
        var receipts: [String: [Store.Receipt]] = [:]
        var revocations: [Store.RevokeDevices.Params] = []
        var putManyCalls: [Int] = []
        var failPutManyAfter: Int?
        var byKey: [String: Store.Put.Result] = [:]
        var publishCalls: [[Store.Publish.Item]] = []
        var discarded: [String] = []
        var refusedPublishing: Set<String> = []
        var failAfterStoring = 0
        var refusedRecipients: Set<String> = []
    }

    /// Every `store.put` for `recipientID` is refused with `-32602`, and every `store.putMany` holding one (naming the
    /// item), as the store refuses an item it will not take.
    func refuseRecipient(_ recipientID: String) {
        state.withLock { _ = $0.refusedRecipients.insert(recipientID) }
    }

    /// Every `store.publish` naming `notificationID` is refused (`-32602`), as for an item the store will not take.
    func refusePublishing(_ notificationID: String) {
        state.withLock { _ = $0.refusedPublishing.insert(notificationID) }
    }

    /// The next `count` `store.put` calls store their notification, then answer an internal error (a lost answer).
    func failAfterStoring(_ count: Int) {
        state.withLock { $0.failAfterStoring = count }
    }

    /// Every `store.publish` call's items, oldest first.
    var publishCalls: [[Store.Publish.Item]] { state.withLock { $0.publishCalls } }
    /// Every id `store.discard` was asked to delete.
    var discarded: [String] { state.withLock { $0.discarded } }

    private let clock: any AdjustableClock
    private let state = Mutex(State())
    private let gate = CallGate()

    init(clock: any AdjustableClock) {
        self.clock = clock
    }

    /// Every call that reached the store, oldest first (including refused ones).
    var calls: [Call] { state.withLock { $0.calls } }

    /// Calls that stored a notification.
    var storedCalls: [Call] { calls.filter { $0.notificationID != nil } }

    /// Switches how the fake answers.
    func setMode(_ mode: Mode) {
        state.withLock { $0.mode = mode }
    }

    /// The next `count` calls are refused with `-32001`, as for a token the store no longer accepts.
    func refuseTokens(_ count: Int) {
        state.withLock { $0.tokensToRefuse = count }
    }

    /// Every `store.revokeDevices` the store answered, oldest first.
    var revocations: [Store.RevokeDevices.Params] { state.withLock { $0.revocations } }

    /// What `store.receipts` answers for `notificationID` (and `store.receiptsSince` among all).
    func setReceipts(_ receipts: [Store.Receipt], for notificationID: String) {
        state.withLock { $0.receipts[notificationID] = receipts }
    }

    /// Holds every following call until `openGate()`.
    func closeGate() { gate.close() }

    /// Lets held calls (and later ones) through.
    func openGate() { gate.open() }

    /// How many calls are held at the gate.
    var heldCount: Int { gate.heldCount }

    /// A client to this fake, as push-dispatch's composition root receives one.
    var client: RPCClient {
        RPCClient(transport: Transport(store: self), peerName: "notification-store")
    }

    private struct Transport: RPCTransport {
        let store: FakeStore

        func post(_ body: Data, bearerToken: String?) async throws -> Data? {
            guard store.state.withLock({ $0.mode }) != .unreachable else {
                throw RPCError.unavailable("notification-store", "connection refused")
            }
            return await store.dispatcher.handle(
                body: body, context: RPCRequestContext(bearerToken: bearerToken, logger: .quiet))
        }
    }

    private var dispatcher: RPCDispatcher {
        var dispatcher = RPCDispatcher()
        dispatcher.register(Store.Put.self) { [self] params, context in
            await passGate()
            return try put(params, token: context.bearerToken)
        }
        dispatcher.register(Store.PutMany.self) { [self] params, context in
            await passGate()
            return try putMany(params.items, token: context.bearerToken)
        }
        dispatcher.register(Store.Publish.self) { [self] params, context in
            guard context.bearerToken != nil else { throw RPCError.unauthenticated() }
            await passGate()
            return try state.withLock { state in
                guard state.mode == .up else { throw RPCError.internalError }
                if params.items.contains(where: { state.refusedPublishing.contains($0.notificationId) }) {
                    throw RPCError.invalidParams(field: "items", "refused by the test")
                }
                state.publishCalls.append(params.items)
                let stored = Set(state.calls.compactMap(\.notificationID))
                let missing = params.items.map(\.notificationId).filter { !stored.contains($0) }
                return Store.Publish.Result(
                    published: params.items.count - missing.count, missingNotificationIds: missing)
            }
        }
        dispatcher.register(Store.Discard.self) { [self] params, context in
            guard context.bearerToken != nil else { throw RPCError.unauthenticated() }
            return try state.withLock { state in
                guard state.mode == .up else { throw RPCError.internalError }
                state.discarded += params.notificationIds
                return Store.Discard.Result(discarded: params.notificationIds.count)
            }
        }
        dispatcher.register(Store.Receipts.self) { [self] params, context in
            guard context.bearerToken != nil else { throw RPCError.unauthenticated() }
            return try state.withLock { state in
                guard state.mode == .up else { throw RPCError.internalError }
                return Store.Receipts.Result(receipts: state.receipts[params.notificationId] ?? [])
            }
        }
        dispatcher.register(Store.ReceiptsSince.self) { [self] params, context in
            guard context.bearerToken != nil else { throw RPCError.unauthenticated() }
            return try state.withLock { state in
                guard state.mode == .up else { throw RPCError.internalError }
                let all = state.receipts.flatMap { id, receipts in
                    receipts.map {
                        Store.FeedReceipt(notificationId: id, deviceId: $0.deviceId, fetchedAt: $0.fetchedAt)
                    }
                }
                let page = all.filter { $0.fetchedAt.millisecondsSince1970 >= params.after }
                    .sorted {
                        ($0.fetchedAt, $0.notificationId, $0.deviceId) < ($1.fetchedAt, $1.notificationId, $1.deviceId)
                    }
                    .prefix(params.limit ?? 500)
                return Store.ReceiptsSince.Result(
                    receipts: Array(page), next: page.last?.fetchedAt.millisecondsSince1970 ?? params.after)
            }
        }
        dispatcher.register(Store.RevokeDevices.self) { [self] params, context in
            guard context.bearerToken != nil else { throw RPCError.unauthenticated() }
            return try state.withLock { state in
                guard state.mode == .up else { throw RPCError.internalError }
                state.revocations.append(params)
                return Store.RevokeDevices.Result(deviceIds: params.deviceIds.count, sealedCopiesDeleted: 0)
            }
        }
        Self.refuse(Store.Get.self, in: &dispatcher)
        Self.refuse(Store.List.self, in: &dispatcher)
        Self.refuse(Store.MarkRead.self, in: &dispatcher)
        Self.refuse(Store.Delete.self, in: &dispatcher)
        return dispatcher
    }

    /// Calls that reached `store.putMany`, each with its item count.
    var putManyCalls: [Int] { state.withLock { $0.putManyCalls } }

    /// `store.putMany` as the real store answers it: all items or none (an item it refuses, `-32602` naming it), an item
    /// whose idempotency key was stored before gets that notification again, a held item is `held`. Refused tokens and
    /// lost answers (``refuseTokens(_:)``, ``failAfterStoring(_:)``) as for `store.put`, one per call. The first
    /// `failPutManyAfter` calls succeed, then every call fails.
    private func putMany(_ items: [Store.Put.Params], token: String?) throws -> Store.PutMany.Result {
        try state.withLock { state in
            guard state.mode == .up else { throw RPCError.internalError }
            guard state.tokensToRefuse == 0 else {
                state.tokensToRefuse -= 1
                throw RPCError.unauthenticated("token expired or not valid here")
            }
            if let limit = state.failPutManyAfter, state.putManyCalls.count >= limit { throw RPCError.internalError }
            if let index = items.firstIndex(where: { state.refusedRecipients.contains($0.recipientId) }) {
                throw RPCError.invalidParams(field: "items[\(index)].recipientId", "refused by the test")
            }
            state.putManyCalls.append(items.count)
            let results = items.map { item in
                if let key = item.idempotencyKey, let first = state.byKey[key] { return first }
                let id = UUID().uuidString.lowercased()
                state.calls.append(Call(params: item, token: token, notificationID: id))
                let result = Store.Put.Result(
                    notificationId: id,
                    expiresAt: clock.now.addingTimeInterval(TimeInterval(item.ttlSeconds ?? 604_800)),
                    held: item.sendAt == nil ? nil : true)
                if let key = item.idempotencyKey { state.byKey[key] = result }
                return result
            }
            if state.failAfterStoring > 0 {
                state.failAfterStoring -= 1
                throw RPCError.internalError
            }
            return Store.PutMany.Result(results: results)
        }
    }

    /// Lets the first `calls` `store.putMany` calls through and fails every later one (`nil`: none fails).
    func failPutMany(after calls: Int?) {
        state.withLock { $0.failPutManyAfter = calls }
    }

    private func put(_ params: Store.Put.Params, token: String?) throws -> Store.Put.Result {
        try state.withLock { state in
            guard state.mode == .up else { throw RPCError.internalError }
            guard state.tokensToRefuse == 0 else {
                state.tokensToRefuse -= 1
                state.calls.append(Call(params: params, token: token))
                throw RPCError.unauthenticated("token expired or not valid here")
            }
            if let key = params.idempotencyKey, let first = state.byKey[key] { return first }
            if state.refusedRecipients.contains(params.recipientId) {
                state.calls.append(Call(params: params, token: token))
                throw RPCError.invalidParams(field: "recipientId", "refused by the test")
            }
            let id = UUID().uuidString.lowercased()
            state.calls.append(Call(params: params, token: token, notificationID: id))
            let expiresAt = clock.now.addingTimeInterval(TimeInterval(params.ttlSeconds ?? 604_800))
            let result = Store.Put.Result(
                notificationId: id, expiresAt: expiresAt, held: params.sendAt == nil ? nil : true)
            if let key = params.idempotencyKey { state.byKey[key] = result }
            if state.failAfterStoring > 0 {
                state.failAfterStoring -= 1
                throw RPCError.internalError
            }
            return result
        }
    }

    private func passGate() async { await gate.pass() }

    private static func refuse<M: RPCMethod>(_ method: M.Type, in dispatcher: inout RPCDispatcher) {
        dispatcher.register(method) { _, _ in
            Issue.record("FakeStore: push-dispatch must not call \(M.name)")
            throw RPCError.internalError
        }
    }
}
