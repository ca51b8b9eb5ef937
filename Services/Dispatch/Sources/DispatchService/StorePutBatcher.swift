import NIOCore
import ServiceCore
import SharedModels
import Synchronization
import Tracing

/// Coalesces concurrent `store.put` calls into `store.putMany` (issue 33's send path): a put that finds fewer than
/// ``maximumInFlight`` calls in flight is sent at once, alone, as before; puts that arrive while that many are in
/// flight wait for one to end and then go together, as one call and one store transaction, and each caller gets its
/// own notification back. Under load a send then costs the store a share of one call instead of a call; alone, it
/// costs what it did.
///
/// A batch is bounded by ``maximumItems``, ``maximumSealedCopies`` (each is an HPKE seal in the store) and
/// ``budgetBytes`` of estimated JSON, so that one batch never holds the sends behind it for long and the store's
/// request limit takes it; an item over the byte budget goes alone. When the store refuses a batch (`-32602`: an item
/// it will not take; `-32600`: a request over its `SECUREPUSH_MAX_BODY_BYTES`; both before anything is written, and
/// a batch is all or none), each item is sent again alone, so only the caller whose item it was gets the refusal.
/// Any other failure fails each caller of the batch, as it would have failed each call. A caller cancelled while its
/// put waits is taken out of the queue (`CancellationError`) and its item is not sent.
final class StorePutBatcher: Sendable {
    /// Calls to the store in flight at once before puts queue, by default: one per four cores, at least one. Fewer
    /// calls in flight make larger batches (on this project's 2-core benchmark machine, one call in flight saved the
    /// store a fifth of its CPU per send, two only a tenth); more let a store on a larger machine seal several batches
    /// at once. A batch is bounded (below), so the sends queued behind one wait for a bounded amount of work.
    static let defaultMaximumInFlight = max(1, System.coreCount / 4)
    /// Most items one `store.putMany` carries.
    static let maximumItems = 128
    /// Most sealed copies (recipient keys) one `store.putMany` asks for, across its items.
    static let maximumSealedCopies = 256
    /// Most estimated bytes one `store.putMany` carries: a quarter of the default request limit.
    static let budgetBytes = 256 << 10

    /// One put waiting for its batch.
    private struct Waiter {
        var id: Int
        var item: Store.Put.Params
        var estimatedBytes: Int
        var continuation: CheckedContinuation<Store.Put.Result, any Error>
        var context: ServiceContext?
    }

    private struct State {
        /// Calls to the store in flight; at ``maximumInFlight``, puts queue.
        var inFlight = 0
        var waiting: [Waiter] = []
        var nextID = 0
    }

    private let state = Mutex(State())
    /// Calls to the store in flight at once before puts queue.
    let maximumInFlight: Int
    private let single: @Sendable (Store.Put.Params) async throws -> Store.Put.Result
    private let many: @Sendable ([Store.Put.Params]) async throws -> [Store.Put.Result]
    private let mapFailure: @Sendable (any Error) -> any Error

    /// - Parameters:
    ///   - maximumInFlight: calls to the store in flight at once before puts queue (at least 1).
    ///   - single: sends one `store.put` (failures as the caller must see them).
    ///   - many: sends one `store.putMany`, throwing the store's own ``RPCError`` when it answers with one.
    ///   - mapFailure: turns a failure of `many` into what each caller sees.
    init(
        maximumInFlight: Int = StorePutBatcher.defaultMaximumInFlight,
        single: @escaping @Sendable (Store.Put.Params) async throws -> Store.Put.Result,
        many: @escaping @Sendable ([Store.Put.Params]) async throws -> [Store.Put.Result],
        mapFailure: @escaping @Sendable (any Error) -> any Error
    ) {
        self.maximumInFlight = max(1, maximumInFlight)
        self.single = single
        self.many = many
        self.mapFailure = mapFailure
    }

    /// Puts queued behind the calls in flight (for tests).
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// Stores `item`: now, alone, when fewer than ``maximumInFlight`` calls are in flight; else with the others
    /// queued behind them.
    func put(_ item: Store.Put.Params) async throws -> Store.Put.Result {
        let bytes = Self.estimatedBytes(of: item)
        if bytes > Self.budgetBytes { return try await single(item) }
        let alone = state.withLock { state in
            guard state.inFlight < maximumInFlight else { return false }
            state.inFlight += 1
            return true
        }
        if alone {
            // Sent from the caller's own task, as an unbatched put is: its cancellation is the caller's alone.
            defer { callEnded() }
            return try await single(item)
        }
        let context = ServiceContext.current
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let waiter = Waiter(
                    id: id, item: item, estimatedBytes: bytes, continuation: continuation, context: context)
                let startBatch = state.withLock { state -> [Waiter]? in
                    state.waiting.append(waiter)
                    guard state.inFlight < maximumInFlight else { return nil }
                    // A call it queued behind ended meanwhile.
                    state.inFlight += 1
                    return Self.takeBatch(&state)
                }
                if let startBatch { send(startBatch) }
            }
        } onCancel: {
            let removed = state.withLock { state -> Waiter? in
                guard let index = state.waiting.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiting.remove(at: index)
            }
            removed?.continuation.resume(throwing: CancellationError())
        }
    }

    /// After a call: the next batch goes, in a task of its own (it serves many callers), or one call fewer is in
    /// flight.
    private func callEnded() {
        let next = state.withLock { state -> [Waiter]? in
            guard !state.waiting.isEmpty else {
                state.inFlight -= 1
                return nil
            }
            return Self.takeBatch(&state)
        }
        if let next { send(next) }
    }

    /// Sends `batch` in a task that no caller's cancellation ends, in the first caller's trace context.
    private func send(_ batch: [Waiter]) {
        let context = batch.first?.context ?? .topLevel
        Task {
            await ServiceContext.withValue(context) { await self.run(batch) }
            self.callEnded()
        }
    }

    private func run(_ batch: [Waiter]) async {
        guard batch.count > 1 else {
            await runAlone(batch[0])
            return
        }
        do {
            let results = try await many(batch.map(\.item))
            guard results.count == batch.count else {
                // Every caller must be answered: a short answer fails them all (the writer checks this too).
                throw RPCError.internalError
            }
            for (waiter, result) in zip(batch, results) { waiter.continuation.resume(returning: result) }
        } catch let error as RPCError
            where error.code == RPCErrorCode.invalidParams || error.code == RPCErrorCode.invalidRequest
        {
            // The store refused the batch before writing anything: each goes alone, to learn whose item it was.
            await withTaskGroup(of: Void.self) { group in
                for waiter in batch { group.addTask { await self.runAlone(waiter) } }
            }
        } catch {
            let failure = mapFailure(error)
            for waiter in batch { waiter.continuation.resume(throwing: failure) }
        }
    }

    private func runAlone(_ waiter: Waiter) async {
        do {
            waiter.continuation.resume(returning: try await single(waiter.item))
        } catch {
            waiter.continuation.resume(throwing: error)
        }
    }

    /// The waiting puts that fit one batch, oldest first; the rest stay queued.
    private static func takeBatch(_ state: inout State) -> [Waiter] {
        var count = 0
        var bytes = 0
        var sealed = 0
        for waiter in state.waiting {
            let copies = waiter.item.recipientKeys?.count ?? 0
            guard
                count == 0
                    || (count < maximumItems && bytes + waiter.estimatedBytes <= budgetBytes
                        && sealed + copies <= maximumSealedCopies)
            else { break }
            count += 1
            bytes += waiter.estimatedBytes
            sealed += copies
        }
        let batch = Array(state.waiting.prefix(count))
        state.waiting.removeFirst(count)
        return batch
    }

    /// An upper bound of the item's JSON in a request: its payload escaped at worst (six bytes per UTF-8 byte, `\u00XX`),
    /// each sealed copy's key, and the other members.
    static func estimatedBytes(of item: Store.Put.Params) -> Int {
        item.payload.utf8.count * 6 + 512 + (item.recipientKeys?.count ?? 0) * 256
    }
}
