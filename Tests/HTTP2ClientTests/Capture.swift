/// Runs `body` and keeps its outcome, so a test can look at an error after doing other things.
func capture<T: Sendable>(_ body: () async throws -> T) async -> Result<T, any Error> {
    do {
        return .success(try await body())
    } catch {
        return .failure(error)
    }
}
