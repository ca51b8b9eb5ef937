/// Runs `body` outside the current task's cancellation and waits for it: work that must finish once begun (recording
/// an outcome a provider already produced, releasing a reservation a cancelled call holds) is not cut short because
/// the caller was cancelled. Awaited at once, so it never outlives the caller.
public func uncancelled<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await Task { try await body() }.value
}
