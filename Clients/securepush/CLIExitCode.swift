/// What `securepush` exits with; README.md documents the table.
enum CLIExitCode: Int32 {
    /// It worked.
    case ok = 0
    /// A usage mistake, or a service refused the request (bad input, not found, not allowed, not ready).
    case refused = 1
    /// A service could not be reached, or reported a service it depends on as unavailable.
    case unreachable = 2
    /// Signing in is needed: no session, an expired or revoked one, or refused credentials.
    case signInNeeded = 3
    /// `securepush up` could not start (a port in use, a configuration it refuses).
    case startFailed = 4
}
