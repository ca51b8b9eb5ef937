/// A first-come, first-served lock for async code: SQLite's writer for one transaction whose body awaits between its
/// statements (so no other write can land inside it), and push-dispatch's reloads of its apps (one at a time).
public actor AsyncLock {
    public init() {}

    private var held = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// Runs `body` while holding the lock.
    public func withLock<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        await acquire()
        defer { release() }
        return try await body()
    }

    private func acquire() async {
        if !held {
            held = true
            return
        }
        await withCheckedContinuation { waiters.append($0) }
    }

    private func release() {
        if waiters.isEmpty {
            held = false
        } else {
            // Handed straight to the next waiter: `held` stays true.
            waiters.removeFirst().resume()
        }
    }
}
