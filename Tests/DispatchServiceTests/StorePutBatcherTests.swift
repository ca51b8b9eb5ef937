import Foundation
import ServiceCore
import SharedModels
import Synchronization
import TestSupport
import Testing

@testable import DispatchService

/// ``StorePutBatcher``: concurrent `store.put` calls coalesced into `store.putMany`, each caller answered for its own
/// item.
@Suite("store.put batching", .timeLimit(.minutes(1)))
struct StorePutBatcherTests {
    /// Stand-ins for the store's two methods: every call recorded; `store.put` may be held until released.
    final class Calls: Sendable {
        private struct State {
            var singles: [String] = []
            var batches: [[String]] = []
            var singlesToHold = 0
            var held: [CheckedContinuation<Void, Never>] = []
        }
        private let state = Mutex(State())
        /// Recipients `store.put` refuses with `-32602`.
        let refused: Set<String>
        /// What every `store.putMany` throws, if anything.
        let batchFailure: (any Error & Sendable)?
        /// What `store.putMany` throws for a batch holding a refused item.
        let batchRefusal: RPCError

        /// - Parameter holdFirstSingles: the first `store.put` calls to hold until ``release()``: as many as the
        ///   batcher sends alone, so that what comes next queues.
        init(
            holdFirstSingles: Bool = false, refused: Set<String> = [], batchFailure: (any Error & Sendable)? = nil,
            batchRefusal: RPCError = .invalidParams(field: "items[0].recipientKeys", "refused")
        ) {
            self.batchRefusal = batchRefusal
            self.refused = refused
            self.batchFailure = batchFailure
            state.withLock { $0.singlesToHold = holdFirstSingles ? StorePutBatcherTests.inFlight : 0 }
        }

        var singles: [String] { state.withLock { $0.singles } }
        var batches: [[String]] { state.withLock { $0.batches } }
        /// Whether every call to hold is held.
        var isHolding: Bool { state.withLock { $0.held.count == StorePutBatcherTests.inFlight } }

        func release() {
            let held = state.withLock { state in
                defer { state.held = [] }
                return state.held
            }
            for continuation in held { continuation.resume() }
        }

        func single(_ item: Store.Put.Params) async throws -> Store.Put.Result {
            let hold = state.withLock { state in
                state.singles.append(item.recipientId)
                defer { state.singlesToHold = max(0, state.singlesToHold - 1) }
                return state.singlesToHold > 0
            }
            if hold {
                await withCheckedContinuation { continuation in state.withLock { $0.held.append(continuation) } }
            }
            if refused.contains(item.recipientId) { throw RPCError.invalidParams(field: "recipientKeys", "refused") }
            return Self.result(for: item)
        }

        func many(_ items: [Store.Put.Params]) async throws -> [Store.Put.Result] {
            state.withLock { $0.batches.append(items.map(\.recipientId)) }
            if let batchFailure { throw batchFailure }
            if items.contains(where: { refused.contains($0.recipientId) }) { throw batchRefusal }
            return items.map(Self.result(for:))
        }

        static func result(for item: Store.Put.Params) -> Store.Put.Result {
            Store.Put.Result(notificationId: "n-\(item.recipientId)", expiresAt: Date(timeIntervalSince1970: 0))
        }
    }

    /// Calls in flight before puts queue, in these tests (more than one, so that the count is what is tested).
    static let inFlight = 2

    static func batcher(_ calls: Calls) -> StorePutBatcher {
        StorePutBatcher(
            maximumInFlight: inFlight,
            single: { try await calls.single($0) }, many: { try await calls.many($0) },
            mapFailure: { DispatchError.dependencyUnavailable("notification-store", "store.put failed: \($0)") })
    }

    static func item(_ recipient: String, payloadBytes: Int = 16) -> Store.Put.Params {
        Store.Put.Params(recipientId: recipient, payload: String(repeating: "p", count: payloadBytes), ttlSeconds: 60)
    }

    /// Waits (bounded) until `condition` holds.
    static func eventually(_ condition: () -> Bool) async throws {
        for _ in 0..<2_000 where !condition() { try await Task.sleep(for: .milliseconds(5)) }
        #expect(condition())
    }

    /// The puts sent alone and held while the others queue.
    static let firsts = (0..<Self.inFlight).map { "first-\($0)" }

    /// Starts one put per recipient behind held puts (as many as go alone), waits until all are queued, releases the
    /// held ones, and returns each recipient's outcome.
    static func queuedBehindOne(
        _ recipients: [String], calls: Calls, batcher: StorePutBatcher
    ) async throws -> [String: Result<Store.Put.Result, any Error>] {
        try await queuedBehindOne(items: recipients.map { item($0) }, calls: calls, batcher: batcher)
    }

    static func queuedBehindOne(
        items: [Store.Put.Params], calls: Calls, batcher: StorePutBatcher
    ) async throws -> [String: Result<Store.Put.Result, any Error>] {
        async let first = withThrowingTaskGroup(of: String.self) { group in
            for recipient in firsts { group.addTask { try await batcher.put(item(recipient)).notificationId } }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        try await eventually { calls.isHolding }
        let outcomes = try await withThrowingTaskGroup(of: (String, Result<Store.Put.Result, any Error>).self) {
            group in
            for item in items {
                group.addTask {
                    do { return (item.recipientId, .success(try await batcher.put(item))) } catch {
                        return (item.recipientId, .failure(error))
                    }
                }
            }
            try await eventually { batcher.waitingCount == items.count }
            calls.release()
            var outcomes: [String: Result<Store.Put.Result, any Error>] = [:]
            for try await (recipient, outcome) in group { outcomes[recipient] = outcome }
            return outcomes
        }
        #expect(try await first == Set(firsts.map { "n-\($0)" }))
        return outcomes
    }

    @Test("a put with none in flight is one store.put, as before")
    func aloneIsAPut() async throws {
        let calls = Calls()
        let batcher = Self.batcher(calls)
        for recipient in ["a", "b"] {
            #expect(try await batcher.put(Self.item(recipient)).notificationId == "n-\(recipient)")
        }
        #expect(calls.singles == ["a", "b"])
        #expect(calls.batches.isEmpty)
    }

    @Test("puts queued behind one in flight go as one store.putMany, and each caller gets its own notification")
    func queuedPutsShareOneCall() async throws {
        let calls = Calls(holdFirstSingles: true)
        let batcher = Self.batcher(calls)
        let recipients = (0..<20).map { "user-\($0)" }
        let outcomes = try await Self.queuedBehindOne(recipients, calls: calls, batcher: batcher)
        #expect(Set(calls.singles) == Set(Self.firsts))
        #expect(calls.batches.count == 1)
        #expect(Set(calls.batches.first ?? []) == Set(recipients))
        for recipient in recipients {
            #expect(try outcomes[recipient]?.get().notificationId == "n-\(recipient)")
        }
        #expect(batcher.waitingCount == 0)
        // Nothing in flight any more: the next put goes alone.
        _ = try await batcher.put(Self.item("later"))
        #expect(calls.singles.count == Self.firsts.count + 1)
        #expect(calls.singles.last == "later")
    }

    @Test(
        "a batch the store refuses (-32602 an item, -32600 its size) is sent again alone: only that item's send fails",
        arguments: [
            RPCError.invalidParams(field: "items[1].recipientKeys", "refused"),
            RPCError(code: RPCErrorCode.invalidRequest, message: "Invalid Request: body over 1024 bytes"),
        ])
    func refusedBatchIsRetriedAlone(refusal: RPCError) async throws {
        let calls = Calls(holdFirstSingles: true, refused: ["bad"], batchRefusal: refusal)
        let batcher = Self.batcher(calls)
        let outcomes = try await Self.queuedBehindOne(["good-1", "bad", "good-2"], calls: calls, batcher: batcher)
        #expect(calls.batches.count == 1)
        #expect(Set(calls.singles) == Set(Self.firsts + ["good-1", "bad", "good-2"]))
        #expect(try outcomes["good-1"]?.get().notificationId == "n-good-1")
        #expect(try outcomes["good-2"]?.get().notificationId == "n-good-2")
        guard case .failure(let error as RPCError) = outcomes["bad"] else {
            Issue.record(
                "the refused item's caller must get the store's refusal: \(String(describing: outcomes["bad"]))")
            return
        }
        #expect(error.code == RPCErrorCode.invalidParams)
    }

    @Test("any other failure of a batch fails each of its callers, and nothing is sent again")
    func failedBatchFailsEveryCaller() async throws {
        let calls = Calls(holdFirstSingles: true, batchFailure: RPCError.unavailable("notification-store", "down"))
        let batcher = Self.batcher(calls)
        let outcomes = try await Self.queuedBehindOne(["a", "b", "c"], calls: calls, batcher: batcher)
        #expect(Set(calls.singles) == Set(Self.firsts))
        for recipient in ["a", "b", "c"] {
            guard case .failure(let error as DispatchError) = outcomes[recipient] else {
                Issue.record("\(recipient): \(String(describing: outcomes[recipient]))")
                continue
            }
            #expect(error.rpcError.code == RPCErrorCode.unavailable)
        }
    }

    @Test(
        "a batch holds at most maximumItems puts, budgetBytes and maximumSealedCopies; an item over the budget goes alone"
    )
    func batchesAreBounded() async throws {
        // More puts than one batch holds.
        let calls = Calls(holdFirstSingles: true)
        let batcher = Self.batcher(calls)
        let count = StorePutBatcher.maximumItems + 2
        async let outcomes = Self.queuedBehindOne((0..<count).map { "user-\($0)" }, calls: calls, batcher: batcher)
        try await Self.eventually { calls.isHolding }
        // While the calls in flight are held: an item over the byte budget does not queue, it goes at once.
        let large = Self.item("large", payloadBytes: StorePutBatcher.budgetBytes / 6 + 1)
        #expect(StorePutBatcher.estimatedBytes(of: large) > StorePutBatcher.budgetBytes)
        #expect(try await batcher.put(large).notificationId == "n-large")
        #expect(try await outcomes.count == count)
        // Batches go out on as many calls as are free, so the store may receive them in either order.
        #expect(calls.batches.map(\.count).sorted(by: >) == [StorePutBatcher.maximumItems, 2])

        // Items of a quarter of the byte budget each: at most four a batch.
        let quarter = StorePutBatcher.budgetBytes / 4
        let byBytes = Calls(holdFirstSingles: true)
        _ = try await Self.queuedBehindOne(
            items: (0..<9).map { Self.item("b-\($0)", payloadBytes: (quarter - 512) / 6) }, calls: byBytes,
            batcher: Self.batcher(byBytes))
        #expect(byBytes.batches.map(\.count) == [4, 4] && byBytes.singles.count == Self.firsts.count + 1)

        // Items asking for 100 sealed copies each: at most two a batch.
        let keys = (0..<100).map { Store.RecipientKey(deviceId: "d\($0)", publicKey: "k") }
        let bySeals = Calls(holdFirstSingles: true)
        _ = try await Self.queuedBehindOne(
            items: (0..<5).map { index in
                var item = Self.item("s-\(index)")
                item.recipientKeys = keys
                return item
            }, calls: bySeals, batcher: Self.batcher(bySeals))
        #expect(bySeals.batches.map(\.count) == [2, 2] && bySeals.singles.count == Self.firsts.count + 1)
    }

    @Test("a caller cancelled while its put waits leaves the queue with CancellationError, and its item is not sent")
    func cancelledWaiterLeaves() async throws {
        let calls = Calls(holdFirstSingles: true)
        let batcher = Self.batcher(calls)
        async let firsts = withThrowingTaskGroup(of: Void.self) { group in
            for recipient in Self.firsts { group.addTask { _ = try await batcher.put(Self.item(recipient)) } }
            try await group.waitForAll()
        }
        try await Self.eventually { calls.isHolding }
        let cancelled = Task { try await batcher.put(Self.item("cancelled")) }
        let kept = Task { try await batcher.put(Self.item("kept")) }
        try await Self.eventually { batcher.waitingCount == 2 }
        cancelled.cancel()
        try await Self.eventually { batcher.waitingCount == 1 }
        // Released before awaiting the cancelled put: if it were still queued, it would be sent, not hang the test.
        calls.release()
        #expect(try await kept.value.notificationId == "n-kept")
        let outcome = await cancelled.result
        #expect(throws: CancellationError.self) { try outcome.get() }
        try await firsts
        #expect(!calls.singles.contains("cancelled") && !calls.batches.joined().contains("cancelled"))
    }

    @Test(
        "through the writer: puts queued behind held calls go as one store.putMany; a refused item fails only its send")
    func writerBatchesAndRetries() async throws {
        let store = FakeStore(clock: TestClock())
        let auth = FakeAuth(signer: try await TestSigner())
        let writer = NotificationStoreWriter(
            store: store.client,
            tokens: ClientCredentialsTokenProvider(
                auth: auth.client, clientID: FakeAuth.clientID, clientSecret: FakeAuth.clientSecret))
        store.refuseRecipient("bad")
        for (round, recipients) in [["ok-0", "ok-1", "ok-2"], ["ok-3", "bad", "ok-4"]].enumerated() {
            store.closeGate()
            let outcomes = try await withThrowingTaskGroup(of: (String, Result<Store.Put.Result, any Error>).self) {
                group in
                // As many as the writer sends alone (its default), held at the store; then the others queue.
                let alone = (0..<StorePutBatcher.defaultMaximumInFlight).map { "first-\($0)-\(round)" }
                for recipient in alone + recipients {
                    if recipient == recipients.first {
                        try await Self.eventually { store.heldCount == alone.count }
                    }
                    group.addTask {
                        do { return (recipient, .success(try await writer.put(Self.item(recipient)))) } catch {
                            return (recipient, .failure(error))
                        }
                    }
                }
                try await Self.eventually { writer.queuedPuts == recipients.count }
                store.openGate()
                return try await group.reduce(into: [String: Result<Store.Put.Result, any Error>]()) {
                    $0[$1.0] = $1.1
                }
            }
            for recipient in recipients where recipient != "bad" {
                let id = try #require(try outcomes[recipient]?.get().notificationId)
                #expect(store.storedCalls.filter { $0.notificationID == id }.map(\.params.recipientId) == [recipient])
            }
            if round == 1 {
                guard case .failure(let failure as DispatchError) = outcomes["bad"] else {
                    Issue.record("the refused send must fail: \(String(describing: outcomes["bad"]))")
                    continue
                }
                let error = failure.rpcError
                #expect(error.code == RPCErrorCode.unavailable)
                #expect(error.message.contains("store.put failed (-32602)"), "\(error.message)")
            }
        }
        // The first round's three went as one call; the second's was refused whole, then sent item by item.
        #expect(store.putManyCalls == [3])
    }
}
