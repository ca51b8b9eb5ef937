/// Runs `body`, then awaits `cleanup` whether `body` returned or threw: an awaited `defer`, so a test's clients and
/// processes are shut down before the test ends instead of in a detached task that may outlive it.
public func withFinally<T>(
    _ body: () async throws -> T, finally cleanup: () async -> Void
) async throws -> T {
    let result: T
    do {
        result = try await body()
    } catch {
        await cleanup()
        throw error
    }
    await cleanup()
    return result
}
